package federation

// TopicInboxProcess is the job that processes one accepted inbox
// activity. The inbox endpoint enqueues it in the transaction that stores
// the activity's body (store.InboxItems), so an activity is processed
// exactly when its acceptance commits.
const TopicInboxProcess = "inbox.process"

// InboxJob is the payload of TopicInboxProcess. A queue payload is at most
// queue.MaxPayload (64 KB) and an activity may be 1 MB, so the job names
// the stored item rather than carrying the body: the processor reads it
// with tx.InboxItems().Get(Item) and calls Done(Item) when finished.
type InboxJob struct {
	Item string `json:"item"`
}
