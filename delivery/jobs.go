// Package delivery sends what the owner does to remote servers: one job
// type per row of the seed's table, each registered with its retry
// policy (queue.DeliveryPolicy: 30 s → 2 m → 8 m → 32 m) by package
// delivery/deliver, which runs them. Fan-out jobs (deliver_post,
// deliver_delete, send_announce, send_undo_announce, update_actor) turn
// into one job per distinct inbox — a follower's shared inbox when it has
// one — through package fanout.
//
// This file is the vocabulary other packages enqueue with: the topics,
// their payloads and the constructors that give each job a deterministic
// id, so an action enqueued twice (a retried transaction, a double click)
// is one job. Services call the constructors inside their write
// transaction and enqueue with tx.Jobs().Enqueue. Payloads carry what the
// handler needs even after the row that caused it is gone (an Undo after
// the follow was deleted, a Delete after the post was deleted).
package delivery

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/murlog/murlog/queue"
)

// Topics, named as in the seed's job table.
const (
	TopicDeliverPost       = "deliver_post"        // fan-out: Create (or Update) of a post → deliver_note per inbox
	TopicDeliverNote       = "deliver_note"        // one inbox: Create/Update of a post
	TopicDeliverUpdate     = "deliver_update"      // one inbox: Update of the actor
	TopicDeliverDelete     = "deliver_delete"      // fan-out: Delete of a post → deliver_delete_note per inbox
	TopicDeliverDeleteNote = "deliver_delete_note" // one inbox: Delete of a post
	TopicDeliverAnnounce   = "deliver_announce"    // one inbox: Announce or its Undo
	TopicAcceptFollow      = "accept_follow"       // Accept of a remote Follow
	TopicRejectFollow      = "reject_follow"       // Reject of a remote Follow
	TopicSendFollow        = "send_follow"
	TopicSendUndoFollow    = "send_undo_follow"
	TopicSendLike          = "send_like"
	TopicSendUndoLike      = "send_undo_like"
	TopicSendAnnounce      = "send_announce"      // fan-out: Announce → deliver_announce per inbox
	TopicSendUndoAnnounce  = "send_undo_announce" // fan-out: Undo Announce → deliver_announce per inbox
	TopicSendBlock         = "send_block"
	TopicSendUndoBlock     = "send_undo_block"
	TopicUpdateActor       = "update_actor" // fan-out: Update Person → deliver_update per inbox
)

// Sends reports whether topic's jobs POST to another server: what the
// owner's delivery switch holds. The fan-outs only write jobs locally and
// go on while it is off; the jobs they write wait.
func Sends(topic string) bool {
	switch topic {
	case TopicDeliverNote, TopicDeliverUpdate, TopicDeliverDeleteNote, TopicDeliverAnnounce, TopicAcceptFollow,
		TopicRejectFollow, TopicSendFollow, TopicSendUndoFollow, TopicSendLike, TopicSendUndoLike, TopicSendBlock,
		TopicSendUndoBlock:
		return true
	}
	return false
}

// Activity kinds of deliver_post and deliver_note.
const (
	ActivityCreate = "Create"
	ActivityUpdate = "Update"
)

// PostPayload is deliver_post: send a post's Create (or, after an edit,
// its Update) to every follower's inbox, each mentioned actor and the
// parent's author. Version is the post's updated_at in RFC 3339 with
// nanoseconds for an Update, "" for the Create: it makes each edit's
// delivery a distinct job and activity id.
type PostPayload struct {
	PostID   string `json:"post_id"`
	Activity string `json:"activity"` // ActivityCreate or ActivityUpdate
	Version  string `json:"version,omitempty"`
}

// NotePayload is deliver_note: one post's activity to one inbox.
type NotePayload struct {
	PostID   string `json:"post_id"`
	Activity string `json:"activity"`
	Version  string `json:"version,omitempty"`
	Inbox    string `json:"inbox"`
}

// DeletePayload is deliver_delete: the post is gone when it runs, so the
// payload keeps who wrote it and who must hear of it. Inboxes are the
// recipients beyond the followers (mentioned actors, the parent's author)
// that received the post.
type DeletePayload struct {
	PostID    string   `json:"post_id"`
	PersonaID string   `json:"persona_id"`
	Inboxes   []string `json:"inboxes,omitempty"`
	// OnlyInboxes sends the Delete to Inboxes alone, not to the
	// followers: a direct post went only to the actors it mentioned.
	OnlyInboxes bool `json:"only_inboxes,omitempty"`
}

// DeleteNotePayload is deliver_delete_note: the Delete to one inbox.
type DeleteNotePayload struct {
	PostID    string `json:"post_id"`
	PersonaID string `json:"persona_id"`
	Inbox     string `json:"inbox"`
}

// ActorPayload is update_actor: the persona's profile changed at Version
// (its updated_at, RFC 3339 with nanoseconds).
type ActorPayload struct {
	PersonaID string `json:"persona_id"`
	Version   string `json:"version"`
}

// ActorUpdatePayload is deliver_update: the Update Person to one inbox.
type ActorUpdatePayload struct {
	PersonaID string `json:"persona_id"`
	Version   string `json:"version"`
	Inbox     string `json:"inbox"`
}

// AnnouncePayload is send_announce and send_undo_announce: the persona
// boosted (or un-boosted) Object, in the activity ActivityID. For the Undo
// ActivityID is the Announce's id and UndoID the Undo's.
type AnnouncePayload struct {
	PersonaID  string `json:"persona_id"`
	Object     string `json:"object"`    // the boosted post's id (IRI)
	ObjectTo   string `json:"object_to"` // its author's inbox, which hears of the boost even when not a follower
	ActivityID string `json:"activity_id"`
	UndoID     string `json:"undo_id,omitempty"`
}

// AnnounceDeliveryPayload is deliver_announce: an Announce or its Undo
// (UndoID set) to one inbox.
type AnnounceDeliveryPayload struct {
	AnnouncePayload
	Inbox string `json:"inbox"`
}

// ActivityPayload is every one-recipient activity: accept_follow,
// reject_follow, send_follow, send_undo_follow, send_like, send_undo_like,
// send_block, send_undo_block. ActivityID is the activity's id — for an
// Undo, the id of the activity undone, with UndoID the Undo's own id; for
// Accept and Reject, the id of the remote Follow they answer, with UndoID
// the Accept's or Reject's own id. Object is what the activity is about:
// the followed, blocked or Follow-sending actor's id, or the liked post's
// id.
type ActivityPayload struct {
	PersonaID  string `json:"persona_id"`
	Actor      string `json:"actor"` // the remote actor's id (IRI)
	Inbox      string `json:"inbox"`
	Object     string `json:"object"`
	ActivityID string `json:"activity_id"`
	UndoID     string `json:"undo_id,omitempty"`
	// Content is a Like's reaction (Misskey's emoji); "" for a plain like.
	Content string `json:"content,omitempty"`
}

// jobNS namespaces delivery job ids.
var jobNS = uuid.MustParse("5f1c2b7e-8a4d-4c39-b0e6-2d9a7f3c1e58")

// newJob makes a job of topic with payload p and an id derived from topic
// and key, so the same action enqueued twice is one job.
func newJob(topic, key string, p any) queue.Job {
	b, err := json.Marshal(p)
	if err != nil {
		panic("delivery: payload of " + topic + " does not marshal: " + err.Error()) // only strings and slices of strings
	}
	j := queue.NewJob(topic, b)
	j.ID = uuid.NewSHA1(jobNS, []byte(topic+"\n"+key)).String()
	return j
}

// PostJob is deliver_post for p.
func PostJob(p PostPayload) queue.Job {
	return newJob(TopicDeliverPost, p.PostID+"\n"+p.Activity+"\n"+p.Version, p)
}

// DeleteJob is deliver_delete for p.
func DeleteJob(p DeletePayload) queue.Job { return newJob(TopicDeliverDelete, p.PostID, p) }

// ActorJob is update_actor for p.
func ActorJob(p ActorPayload) queue.Job {
	return newJob(TopicUpdateActor, p.PersonaID+"\n"+p.Version, p)
}

// AnnounceJob is send_announce (p.UndoID empty) or send_undo_announce.
func AnnounceJob(p AnnouncePayload) queue.Job {
	if p.UndoID != "" {
		return newJob(TopicSendUndoAnnounce, p.UndoID, p)
	}
	return newJob(TopicSendAnnounce, p.ActivityID, p)
}

// ActivityJob is one of the one-recipient topics (accept_follow,
// reject_follow, send_follow, send_undo_follow, send_like, send_undo_like,
// send_block, send_undo_block) for p. Its id follows the activity's own id
// (UndoID when set, else ActivityID), which is unique.
func ActivityJob(topic string, p ActivityPayload) queue.Job {
	key := p.ActivityID
	if p.UndoID != "" {
		key = p.UndoID
	}
	return newJob(topic, key+"\n"+p.Inbox, p)
}

// Version is the Version of a payload for a row updated at t: RFC 3339
// in UTC, to the microsecond that stores keep, so the version a write
// computed equals the one its job reads back.
func Version(t time.Time) string { return t.UTC().Truncate(time.Microsecond).Format(time.RFC3339Nano) }
