package activitypub

import (
	"github.com/murlog/murlog"
)

// check applies the caps of limits.go to o and the objects embedded in it.
// path names o's position ("" for the document, "object." below it) so
// that the error says which field broke which cap.
func check(o *Object, path string) error {
	if err := checkIRI(path+"id", o.ID); err != nil {
		return err
	}
	if err := checkLen(path+"type", o.Type, MaxNameLen, "MaxNameLen"); err != nil {
		return err
	}
	for _, f := range []struct {
		name, v string
	}{
		{"inReplyTo", o.InReplyTo}, {"url", o.URL}, {"quote", o.QuoteOf},
		{"inbox", o.Inbox}, {"outbox", o.Outbox}, {"followers", o.Followers},
		{"following", o.Following}, {"featured", o.Featured},
		{"endpoints.sharedInbox", o.Endpoints.SharedInbox}, {"movedTo", o.MovedTo},
	} {
		if err := checkIRI(path+f.name, f.v); err != nil {
			return err
		}
	}
	if n := len(o.To) + len(o.Cc) + len(o.Bto) + len(o.Bcc) + len(o.Audience); n > MaxAddress {
		return murlog.Invalid(path+"to", "%d addressees in to, cc, bto, bcc and audience, more than %d (MaxAddress)", n, MaxAddress)
	}
	for _, list := range [][]string{o.To, o.Cc, o.Bto, o.Bcc, o.Audience} {
		for _, a := range list {
			if err := checkLen(path+"to", a, MaxIRI, "MaxIRI"); err != nil {
				return err
			}
		}
	}
	for _, f := range []struct {
		name, v string
		max     int
		cap     string
	}{
		{"content", o.Content, MaxContent, "MaxContent"},
		{"summary", o.Summary, MaxContent, "MaxContent"},
		{"name", o.Name, MaxNameLen, "MaxNameLen"},
		{"preferredUsername", o.PreferredUsername, MaxNameLen, "MaxNameLen"},
		{"mediaType", o.MediaType, MaxNameLen, "MaxNameLen"},
		{"_misskey_reaction", o.MisskeyReaction, MaxNameLen, "MaxNameLen"},
	} {
		if err := checkLen(path+f.name, f.v, f.max, f.cap); err != nil {
			return err
		}
	}
	if len(o.ContentMap) > MaxContentMap {
		return murlog.Invalid(path+"contentMap", "%d languages, more than %d (MaxContentMap)", len(o.ContentMap), MaxContentMap)
	}
	for _, v := range o.ContentMap {
		if err := checkLen(path+"contentMap", v, MaxContent, "MaxContent"); err != nil {
			return err
		}
	}
	if err := checkTags(o, path); err != nil {
		return err
	}
	if err := checkAttachments(o, path); err != nil {
		return err
	}
	if err := checkKeys(o, path); err != nil {
		return err
	}
	if err := checkImages(o, path); err != nil {
		return err
	}
	if len(o.AlsoKnownAs) > MaxRefs {
		return murlog.Invalid(path+"alsoKnownAs", "%d entries, more than %d (MaxRefs)", len(o.AlsoKnownAs), MaxRefs)
	}
	for _, a := range o.AlsoKnownAs {
		if err := checkIRI(path+"alsoKnownAs", a); err != nil {
			return err
		}
	}
	if p := o.InteractionPolicy; p != nil {
		for _, l := range [][]string{p.CanQuote.AutomaticApproval, p.CanQuote.ManualApproval} {
			if len(l) > MaxRefs {
				return murlog.Invalid(path+"interactionPolicy.canQuote", "%d entries, more than %d (MaxRefs)", len(l), MaxRefs)
			}
		}
	}
	if err := checkRef(path+"actor", o.Actor); err != nil {
		return err
	}
	if err := checkRef(path+"target", o.Target); err != nil {
		return err
	}
	if err := checkRef(path+"replies", o.Replies); err != nil {
		return err
	}
	if err := checkCollection(o, path); err != nil {
		return err
	}
	for _, refs := range []struct {
		name string
		rs   Refs
	}{{"object", o.Object}, {"attributedTo", o.AttributedTo}} {
		if len(refs.rs) > MaxRefs {
			return murlog.Invalid(path+refs.name, "%d entries, more than %d (MaxRefs)", len(refs.rs), MaxRefs)
		}
		for _, r := range refs.rs {
			if err := checkRef(path+refs.name, r); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkCollection(o *Object, path string) error {
	if err := checkIRI(path+"partOf", o.PartOf); err != nil {
		return err
	}
	if err := checkRef(path+"first", o.First); err != nil {
		return err
	}
	if err := checkRef(path+"next", o.Next); err != nil {
		return err
	}
	if len(o.Items) > MaxItems {
		return murlog.Invalid(path+"orderedItems", "%d items, more than %d (MaxItems)", len(o.Items), MaxItems)
	}
	for _, r := range o.Items {
		if err := checkRef(path+"orderedItems", r); err != nil {
			return err
		}
	}
	return nil
}

// checkRef checks a Ref's IRI and the object embedded in it, if any.
func checkRef(field string, r Ref) error {
	if r.Object != nil {
		return check(r.Object, field+".")
	}
	return checkIRI(field, r.ID)
}

func checkTags(o *Object, path string) error {
	if len(o.Tag) > MaxTags {
		return murlog.Invalid(path+"tag", "%d tags, more than %d (MaxTags)", len(o.Tag), MaxTags)
	}
	for _, t := range o.Tag {
		if err := checkLen(path+"tag.name", t.Name, MaxNameLen, "MaxNameLen"); err != nil {
			return err
		}
		if err := checkLen(path+"tag.type", t.Type, MaxNameLen, "MaxNameLen"); err != nil {
			return err
		}
		if err := checkLen(path+"tag.href", t.Href, MaxIRI, "MaxIRI"); err != nil {
			return err
		}
		if t.Icon != nil {
			if err := checkLen(path+"tag.icon.url", t.Icon.URL, MaxIRI, "MaxIRI"); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkAttachments(o *Object, path string) error {
	fields := 0
	for _, a := range o.Attachment {
		if a.Type == "PropertyValue" {
			fields++
		}
	}
	if fields > MaxFields {
		return murlog.Invalid(path+"attachment", "%d PropertyValue fields, more than %d (MaxFields)", fields, MaxFields)
	}
	if n := len(o.Attachment) - fields; n > MaxAttachments {
		return murlog.Invalid(path+"attachment", "%d attachments, more than %d (MaxAttachments)", n, MaxAttachments)
	}
	for _, a := range o.Attachment {
		for _, f := range []struct {
			name, v string
			max     int
			cap     string
		}{
			{"attachment.url", a.URL, MaxIRI, "MaxIRI"},
			{"attachment.name", a.Name, MaxAltText, "MaxAltText"},
			{"attachment.summary", a.Summary, MaxAltText, "MaxAltText"},
			{"attachment.value", a.Value, MaxNameLen, "MaxNameLen"},
			{"attachment.mediaType", a.MediaType, MaxNameLen, "MaxNameLen"},
			{"attachment.blurhash", a.Blurhash, MaxNameLen, "MaxNameLen"},
			{"attachment.type", a.Type, MaxNameLen, "MaxNameLen"},
		} {
			if err := checkLen(path+f.name, f.v, f.max, f.cap); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkKeys(o *Object, path string) error {
	if len(o.PublicKey) > MaxKeys {
		return murlog.Invalid(path+"publicKey", "%d keys, more than %d (MaxKeys)", len(o.PublicKey), MaxKeys)
	}
	if len(o.AssertionMethod) > MaxKeys {
		return murlog.Invalid(path+"assertionMethod", "%d keys, more than %d (MaxKeys)", len(o.AssertionMethod), MaxKeys)
	}
	for _, k := range o.PublicKey {
		if err := checkIRI(path+"publicKey.id", k.ID); err != nil {
			return err
		}
		if err := checkIRI(path+"publicKey.owner", k.Owner); err != nil {
			return err
		}
		if err := checkLen(path+"publicKey.publicKeyPem", k.PublicKeyPem, MaxKeyLen, "MaxKeyLen"); err != nil {
			return err
		}
	}
	for _, k := range o.AssertionMethod {
		if err := checkIRI(path+"assertionMethod.id", k.ID); err != nil {
			return err
		}
		if err := checkIRI(path+"assertionMethod.controller", k.Controller); err != nil {
			return err
		}
		if err := checkLen(path+"assertionMethod.publicKeyMultibase", k.PublicKeyMultibase, MaxKeyLen, "MaxKeyLen"); err != nil {
			return err
		}
	}
	return nil
}

func checkImages(o *Object, path string) error {
	for _, img := range []struct {
		name string
		i    *Image
	}{{"icon", o.Icon}, {"image", o.Image}} {
		if img.i == nil {
			continue
		}
		if err := checkLen(path+img.name+".url", img.i.URL, MaxIRI, "MaxIRI"); err != nil {
			return err
		}
		if err := checkLen(path+img.name+".mediaType", img.i.MediaType, MaxNameLen, "MaxNameLen"); err != nil {
			return err
		}
	}
	return nil
}

// checkIRI accepts "" (absent) or an absolute http(s) URL within MaxIRI.
func checkIRI(field, v string) error {
	if v == "" {
		return nil
	}
	if err := checkLen(field, v, MaxIRI, "MaxIRI"); err != nil {
		return err
	}
	if HostOf(v) == "" {
		return murlog.Invalid(field, "not an absolute http(s) URL")
	}
	return nil
}

func checkLen(field, v string, max int, name string) error {
	if len(v) > max {
		return murlog.Invalid(field, "%d bytes, more than %d (%s)", len(v), max, name)
	}
	return nil
}
