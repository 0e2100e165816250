package activitypub

// The caps on remote JSON. Every remote document is bounded before it is
// parsed (MaxBody, MaxDepth) and every field after: a document that
// exceeds any cap is refused whole with an EInvalid error naming the field
// and the cap, never truncated, so what is stored is what the sender said.
const (
	// MaxBody is the largest document accepted, in bytes: Mastodon's own
	// inbox limit, and far above any real activity (a long Note with
	// forty tags is ~10 KB).
	MaxBody = 1 << 20
	// MaxDepth is how deeply arrays and objects, counted together, may
	// nest. The deepest real documents are outbox pages at 7 (page,
	// orderedItems, the Create, its Note, the Note's tag list, an emoji
	// tag, its icon — or replies, first, items); the fixtures of
	// Mastodon, Misskey and GoToSocial stay at 5. 10 leaves room and keeps
	// the decoder's recursion, one level per embedded object, short.
	MaxDepth = 10
	// MaxContent caps content, summary and each contentMap value, in bytes
	// after JSON decoding: 100 KB holds a long article's HTML.
	MaxContent = 100_000
	// MaxNameLen caps name, preferredUsername, tag and attachment names,
	// profile field values, media types and blurhashes, in bytes.
	MaxNameLen = 1000
	// MaxAltText caps an attachment's name and summary (its description,
	// alt text), in bytes: Mastodon and GoToSocial allow 1,500 characters,
	// up to 6,000 bytes of UTF-8.
	MaxAltText = 6000
	// MaxIRI caps every IRI (ids, actor, inbox, url, hrefs), in bytes.
	MaxIRI = 2048
	// MaxAddress caps to+cc+bto+bcc+audience together. A Mastodon post
	// mentioning many people stays far below; 500 leaves room for
	// group servers.
	MaxAddress = 500
	// MaxTags caps tag (mentions, hashtags, emoji).
	MaxTags = 100
	// MaxAttachments caps media attachments (Mastodon allows 4, Misskey 16).
	MaxAttachments = 20
	// MaxFields caps an actor's PropertyValue attachments (profile
	// fields; Mastodon allows 4, Misskey 16).
	MaxFields = 20
	// MaxContentMap caps the languages in contentMap.
	MaxContentMap = 20
	// MaxKeys caps publicKey and assertionMethod entries, each.
	MaxKeys = 10
	// MaxKeyLen caps one publicKeyPem or publicKeyMultibase, in bytes; an
	// RSA-4096 PEM is ~800 bytes.
	MaxKeyLen = 10_000
	// MaxItems caps the items of one collection page (Mastodon serves
	// 20, GoToSocial 30 per page).
	MaxItems = 200
	// MaxRefs caps the entries of object, attributedTo, alsoKnownAs and
	// each interactionPolicy list.
	MaxRefs = 20
)
