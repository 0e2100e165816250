package markup

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// RemoteRel is the rel RemotePolicy gives every link.
const RemoteRel = "nofollow noopener noreferrer"

// RemotePolicy is the policy for HTML received from other servers (post
// content, summaries, profile bios and fields): the inline formatting,
// lists, quotes and code that Mastodon, Misskey and GoToSocial send, links
// to absolute http(s) URLs only (rel RemoteRel, target _blank), headings
// turned into bold paragraphs, no images (media arrives as attachments), no
// ids, and no class but Mastodon's microformat and link classes (h-card,
// mention, hashtag, u-url, invisible, ellipsis), which its clients and ours
// style.
func RemotePolicy() Policy {
	return Policy{
		Class:            remoteClass,
		NoImages:         true,
		Elements:         remoteElement,
		HeadingsAsStrong: true,
		RemoteLinks:      true,
	}
}

// remoteElement is RemotePolicy's element allow-list.
func remoteElement(el string) bool {
	switch el {
	case "p", "br", "a", "span", "strong", "b", "em", "i", "u", "s", "del",
		"code", "pre", "blockquote", "ul", "ol", "li",
		"h1", "h2", "h3", "h4", "h5", "h6":
		return true
	}
	return false
}

// remoteClass is RemotePolicy's class rule: on a and span, a space-separated
// list of the classes of RemoteClasses. An empty class, which Mastodon puts
// on the visible part of a shortened link, stays too.
func remoteClass(el, val string) bool {
	if el != "a" && el != "span" {
		return false
	}
	if val == "" {
		return true
	}
	for _, c := range strings.Split(val, " ") {
		if !IsRemoteClass(c) {
			return false
		}
	}
	return true
}

// IsRemoteClass reports whether c is one of the classes RemotePolicy keeps.
func IsRemoteClass(c string) bool {
	switch c {
	case "h-card", "mention", "hashtag", "u-url", "invisible", "ellipsis":
		return true
	}
	return false
}

// headingToStrong replaces the heading n by <p><strong> holding its
// children and returns the <p>, which the cleaner then visits in n's place.
func headingToStrong(parent, n *html.Node) *html.Node {
	p := &html.Node{Type: html.ElementNode, Data: "p", DataAtom: atom.P}
	parent.InsertBefore(p, n)
	parent.RemoveChild(n)
	n.Data, n.DataAtom, n.Attr = "strong", atom.Strong, nil
	p.AppendChild(n)
	return p
}
