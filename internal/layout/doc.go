// Package layout has no code: its tests keep the rooms of the house apart
// (docs/architecture.md) — which package may reach which, and where the
// ActivityPub vocabulary is declared.
package layout
