package missions

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/botd-project/botd/bt"
)

// Library is a set of trees loaded from files (botd check -lib): a
// mission's SubTrees may call them as if the mission defined them, as a
// program calls the trees of several files it registered.
type Library struct {
	trees   map[string]*bt.NodeDef
	from    map[string]string // tree -> file
	origins []Origin          // of the documents read, in order
}

// libraryExt reports whether LoadLibrary reads a file of a folder: botd's
// own .json, .yaml and .yml, and the extensions the formats register
// (Codec.Exts).
func libraryExt(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	switch ext {
	case ".json", ".yaml", ".yml":
		return true
	}
	for _, f := range formats {
		if slices.Contains(f.Exts, ext) {
			return true
		}
	}
	return false
}

// LoadLibrary reads trees from files and folders (the files directly in
// a folder with a mission extension: .json, .yaml, .yml and those of the
// registered formats, see Codec.Exts). A tree
// defined twice differently, or a file that does not read, is an error
// that names the file; nothing is loaded then.
func LoadLibrary(paths []string, lim Limits) (*Library, error) {
	l := &Library{trees: map[string]*bt.NodeDef{}, from: map[string]string{}}
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if !e.IsDir() && libraryExt(e.Name()) {
				files = append(files, filepath.Join(p, e.Name()))
			}
		}
	}
	var errs []error
	for _, f := range files {
		d, err := DecodeFile(f, lim, nil)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f, err))
			continue
		}
		if d.Origin != nil {
			l.origins = append(l.origins, d.Origin)
		}
		for _, name := range sortedKeys(d.Trees) {
			t := d.Trees[name]
			if prev, dup := l.trees[name]; dup && !reflect.DeepEqual(prev, t) {
				errs = append(errs, fmt.Errorf("%s: tree %q is also defined, differently, in %s", f, name, l.from[name]))
				continue
			}
			l.trees[name], l.from[name] = t, f
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return l, nil
}

// Names returns the library's tree names, sorted.
func (l *Library) Names() []string {
	if l == nil {
		return nil
	}
	return sortedKeys(l.trees)
}

// Origins are the origins (Document.Origin) of the library's documents
// that have one, in the order their files were read: a format reads what
// its files declared for the files that call their trees.
func (l *Library) Origins() []Origin {
	if l == nil {
		return nil
	}
	return l.origins
}

// use adds to d the library trees its SubTrees call, and theirs, that d
// does not define itself.
func (l *Library) use(d *Document) {
	if l == nil {
		return
	}
	queue := sortedKeys(d.Trees)
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		for _, ref := range subtreeRefs(d.Trees[name]) {
			if _, have := d.Trees[ref]; have {
				continue
			}
			if t, ok := l.trees[ref]; ok {
				if d.Trees == nil {
					d.Trees = map[string]*bt.NodeDef{}
				}
				d.Trees[ref] = t
				queue = append(queue, ref)
			}
		}
	}
}

// subtreeRefs lists the trees a tree's SubTree nodes name.
func subtreeRefs(n *bt.NodeDef) []string {
	var out []string
	var walk func(*bt.NodeDef)
	walk = func(n *bt.NodeDef) {
		if n == nil {
			return
		}
		if n.Type == "SubTree" {
			if t, ok := n.Params["tree"].(string); ok {
				out = append(out, t)
			} else if t, ok := n.Params["ID"].(string); ok {
				out = append(out, t)
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(n)
	sort.Strings(out)
	return out
}

// DecodeFile reads a mission file in any format (see Decode). The files
// it includes, in a format that has includes, are read relative to it;
// lib (may be nil) provides trees its SubTrees call.
func DecodeFile(path string, lim Limits, lib *Library) (*Document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return DecodeAs(data, path, lim, lib)
}

// LoadFile decodes (as DecodeFile, with opts.Library), validates and
// compiles a mission file.
func LoadFile(path string, opts Options) (*Mission, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	d, ps := decodeFile(data, path, opts.Library, opts.Limits, opts.Imports)
	if d == nil {
		return nil, ps.err()
	}
	opts.Library.use(d)
	return d.compile(opts, ps)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
