package testsite

import (
	"context"
	"testing"
)

func TestNewSiteIsSetUpAndLoggedIn(t *testing.T) {
	s := New(t)
	var got struct {
		Items []struct {
			Username string `json:"username"`
			Primary  bool   `json:"primary"`
		} `json:"items"`
	}
	if err := s.Client.Call(context.Background(), "personas.list", nil, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != 1 || got.Items[0].Username != "alice" || !got.Items[0].Primary {
		t.Fatalf("personas.list = %+v; want one primary persona alice", got.Items)
	}
	if err := s.Client.Call(context.Background(), "tokens.list", nil, nil); err != nil {
		t.Fatalf("tokens.list as the logged-in owner: %v", err)
	}
}
