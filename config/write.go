package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrExists is returned by Write when the ini already exists.
var ErrExists = errors.New("config: murlog.ini already exists")

// Write creates the ini at path with the given keys (in Keys order),
// mode 0600 since it sits in a web-served directory on shared hosts. It
// never overwrites: the file is created through a temporary name and
// hard-linked into place, so two concurrent setup requests cannot both win.
func Write(path string, values map[string]string) error {
	var sb strings.Builder
	sb.WriteString("# murlog startup settings, written by the setup wizard.\n")
	sb.WriteString("# Relative paths are relative to this file. Application settings live in the database.\n")
	for _, k := range Keys {
		if v, ok := values[k]; ok && v != "" {
			fmt.Fprintf(&sb, "%s = %s\n", k, quote(v))
		}
	}
	for k := range values {
		if !known(k) {
			return fmt.Errorf("config: unknown key %q", k)
		}
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".murlog.ini-*")
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("config: %w", err)
	}
	if _, err := tmp.WriteString(sb.String()); err != nil {
		tmp.Close()
		return fmt.Errorf("config: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("config: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return ErrExists
		}
		return fmt.Errorf("config: %w", err)
	}
	return nil
}

func known(k string) bool {
	for _, x := range Keys {
		if x == k {
			return true
		}
	}
	return false
}
