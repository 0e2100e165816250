package federation

import (
	"encoding/json"

	"github.com/google/uuid"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/store"
)

// The FEP-044f ids murlog gives its quote answers and authorizations
// (the inbox answers the QuoteRequests), and the QuoteAuthorization
// served at its id.

// quoteNS namespaces the ids of quote answers and authorizations, which
// derive from the request so that answering it twice is one activity.
var quoteNS = uuid.MustParse("6b0f4c1e-2d7a-4e95-9c38-7a1e5d2b9f04")

// QuoteID is the id of persona username's quote answer or authorization
// of kind about key.
func QuoteID(site murlog.Site, username, kind, key string) string {
	return site.ActivityURL(username, QuoteKey(kind, key))
}

// QuoteKey is the last segment of a quote answer's or authorization's
// id (and the id of the answer's job): a name-based UUID of kind and key.
func QuoteKey(kind, key string) string { return uuid.NewSHA1(quoteNS, []byte(kind+"\n"+key)).String() }

// QuoteAuthorizationID is the id of the QuoteAuthorization persona
// username gives for the quoting post quoting.
func QuoteAuthorizationID(site murlog.Site, username, quoting string) string {
	return QuoteID(site, username, "authorization", quoting)
}

// QuoteAuthorizationDoc is the document at a QuoteAuthorization's id,
// which a server fetches to check a quote's consent: served while the
// quoted post is public and the owner allows quotes, after which the
// consent is withdrawn (404).
func QuoteAuthorizationDoc(site murlog.Site, username string, q *store.QuoteAuthorization) any {
	return &activitypub.QuoteDocument{Context: json.RawMessage(activitypub.QuoteContext), ID: site.ActivityURL(username, q.ID), Type: "QuoteAuthorization",
		AttributedTo: site.ActorURL(username), InteractingObject: q.Quoting, InteractionTarget: site.PostURL(username, q.PostID)}
}
