package meta

import (
	"encoding/json"
	"github.com/murlog/murlog/markup"
)

// The schema.org shapes of the JSON-LD block, as structs so that the keys
// come out in one order and empty values are left out.

type ldPerson struct {
	Type          string   `json:"@type"`
	Name          string   `json:"name,omitempty"`
	AlternateName string   `json:"alternateName,omitempty"`
	URL           string   `json:"url,omitempty"`
	Image         string   `json:"image,omitempty"`
	Description   string   `json:"description,omitempty"`
	SameAs        []string `json:"sameAs,omitempty"`
}

type ldWebPage struct {
	Type string `json:"@type"`
	ID   string `json:"@id"`
}

type ldBlogPosting struct {
	Context          string     `json:"@context"`
	Type             string     `json:"@type"`
	Headline         string     `json:"headline"`
	Description      string     `json:"description,omitempty"`
	DatePublished    string     `json:"datePublished,omitempty"`
	DateModified     string     `json:"dateModified,omitempty"`
	Author           *ldPerson  `json:"author,omitempty"`
	MainEntityOfPage *ldWebPage `json:"mainEntityOfPage"`
	URL              string     `json:"url"`
	Image            string     `json:"image,omitempty"`
	InLanguage       string     `json:"inLanguage,omitempty"`
	Keywords         []string   `json:"keywords,omitempty"`
}

type ldProfilePage struct {
	Context     string    `json:"@context"`
	Type        string    `json:"@type"`
	Name        string    `json:"name,omitempty"`
	URL         string    `json:"url"`
	Description string    `json:"description,omitempty"`
	InLanguage  string    `json:"inLanguage,omitempty"`
	MainEntity  *ldPerson `json:"mainEntity"`
}

type ldPage struct {
	Context     string `json:"@context"`
	Type        string `json:"@type"`
	Name        string `json:"name,omitempty"`
	URL         string `json:"url"`
	Description string `json:"description,omitempty"`
	InLanguage  string `json:"inLanguage,omitempty"`
}

const schemaOrg = "https://schema.org"

// jsonLD returns the page's JSON-LD: a BlogPosting for a post, a
// ProfilePage for a persona's site page, a WebPage for tag and search
// pages, "" for error pages. encoding/json writes "<", ">" and "&" as
// \u escapes (and U+2028/U+2029 too), so no text of the page can close
// the <script> element it sits in.
func (p *page) jsonLD() string {
	var v any
	switch {
	case p.kind == "post" && p.in.Post != nil:
		post := &ldBlogPosting{
			Context: schemaOrg, Type: "BlogPosting", Headline: p.headline,
			Description:      p.description,
			Author:           p.person(false),
			MainEntityOfPage: &ldWebPage{Type: "WebPage", ID: p.canonical},
			URL:              p.canonical, Image: p.image, InLanguage: p.lang,
		}
		if !p.published.IsZero() {
			post.DatePublished = p.published.Format(timeFormat)
			post.DateModified = p.modified.Format(timeFormat)
		}
		for _, t := range p.in.Post.Tags {
			if t = oneLine(t); t != "" {
				post.Keywords = append(post.Keywords, t)
			}
		}
		v = post
	case p.kind == "site" && p.username != "":
		v = &ldProfilePage{
			Context: schemaOrg, Type: "ProfilePage", Name: p.siteName, URL: p.canonical,
			Description: p.description, InLanguage: p.lang, MainEntity: p.person(true),
		}
	case p.kind == "tag" || p.kind == "search":
		typ := "CollectionPage"
		if p.kind == "search" {
			typ = "SearchResultsPage"
		}
		v = &ldPage{Context: schemaOrg, Type: typ, Name: p.title, URL: p.canonical, Description: p.description, InLanguage: p.lang}
	default:
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "" // cannot happen: the values are strings and slices of them
	}
	return string(b)
}

// person is the author of a post (name and profile URL) or, full, the
// persona a ProfilePage is about.
func (p *page) person(full bool) *ldPerson {
	if p.author == "" && p.authorURL == "" {
		return nil
	}
	a := &ldPerson{Type: "Person", Name: p.author, URL: p.authorURL}
	if !full {
		return a
	}
	if pr := p.in.Persona; pr != nil {
		a.Name = oneLine(firstOf(pr.DisplayName, pr.Username))
		a.Description = markup.ExcerptText(pr.Summary, descriptionLen)
	}
	a.AlternateName = p.acct
	a.Image = p.absolute(p.in.AvatarURL)
	a.SameAs = p.meLinks
	return a
}
