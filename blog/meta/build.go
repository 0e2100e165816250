package meta

// Build returns the metadata of one page.
//
// TODO(h-meta): written by the meta helper.
func Build(in Input) Meta {
	return Meta{Title: in.Title, Description: in.Description, Canonical: in.Canonical}
}
