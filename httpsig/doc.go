// Package httpsig signs and verifies the HTTP signatures the fediverse uses to
// authenticate server-to-server requests, in both generations that are on
// the wire today.
//
// The first generation is draft-cavage-http-signatures (last revision 12): a
// single Signature header carrying keyId, algorithm, headers and signature,
// where headers lists what was signed — the (request-target) pseudo-header
// ("post /inbox"), ordinary header fields, and optionally the (created) and
// (expires) pseudo-headers. Mastodon, Misskey, GoToSocial and nearly every
// other server send it with an RSA key as algorithm "rsa-sha256" or "hs2019"
// (which means "look at the key"). The body is bound by a signed Digest
// header (RFC 3230, "SHA-256=<base64>").
//
// The second generation is RFC 9421, HTTP Message Signatures: a
// Signature-Input dictionary says, per label, which components were covered
// (derived ones such as @method and @target-uri, and header fields) and the
// parameters (created, expires, keyid, alg); the Signature dictionary holds
// the bytes under the same label. The body is bound by Content-Digest (RFC
// 9530, "sha-256=:<base64>:"). Mastodon verifies it (rsa-v1_5-sha256) and is
// moving its outgoing signatures to it; an actor may also publish an Ed25519
// key as a FEP-521a Multikey, which ParseMultikey reads.
//
// What murlog requires of an inbound signature, beyond a valid signature by
// the key: for cavage, (request-target), host and date are signed, and digest
// too when the request has a body; for RFC 9421, @method, @target-uri and the
// created parameter are signed, and content-digest too on bodies. The
// signature's time must lie in Mastodon's window (see VerifyOptions). Parse
// does these checks without any crypto or the body, so an inbox can refuse
// garbage before reading the body or fetching a key; VerifyDigest then binds
// the body and Signature.Verify checks the signature with the actor's key.
//
// Outbound, SignRFC9421 and SignCavage sign a request the way the receiving
// servers expect; the outbound client tries RFC 9421 first and falls back to
// cavage ("double-knock").
//
// Every refusal is an *Error whose Reason names what was wrong, for the log;
// callers answer 401 and never send the reason to the client.
package httpsig
