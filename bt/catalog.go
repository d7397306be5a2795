package bt

// TypeInfo describes a node type for the factsheet, docs and editors.
type TypeInfo struct {
	Name     string   `json:"name"`
	Aliases  []string `json:"aliases,omitempty"`
	Kind     string   `json:"kind"`
	Category string   `json:"category"`
	Children [2]int   `json:"children"` // min, max (-1: unlimited)
	Doc      string   `json:"doc"`
	Params   []Param  `json:"params"`
}

// Catalog returns every registered node type, sorted by name.
func (r *Registry) Catalog() []TypeInfo {
	types := r.Types()
	out := make([]TypeInfo, len(types))
	for i, t := range types {
		min, max := t.ChildRange()
		if t.Name == "SubTree" || t.Synthesize != nil {
			min, max = 0, 0 // its children come from its parameters
		}
		params := t.Params
		if params == nil {
			params = []Param{}
		}
		out[i] = TypeInfo{Name: t.Name, Aliases: t.Aliases, Kind: t.Kind.String(), Category: t.Category,
			Children: [2]int{min, max}, Doc: t.Doc, Params: params}
	}
	return out
}
