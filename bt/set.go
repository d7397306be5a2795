package bt

var setType = NodeType{
	Name: "Set", Aliases: []string{"SetBlackboard"}, Kind: Leaf, Category: "action",
	Doc: "Writes `value` to the blackboard key `key`; SUCCESS. A value written \"{other}\" copies another key; FAILURE when that key is not set " +
		"(as BehaviorTree.CPP's SetBlackboard when the entry does not exist).",
	Params: []Param{
		{Name: "key", Aliases: []string{"output_key"}, Type: TKey, Required: true, Doc: "key to write"},
		{Name: "value", Type: TAny, Required: true, Doc: "value to write"},
	},
	New: func(b *Builder) Behavior {
		s := &set{key: b.KeyParam("key"), from: NoSlot}
		raw, _ := b.Raw("value")
		if str, ok := raw.(string); ok {
			if k, ok := RefKey(str); ok {
				s.from = b.Key(k)
				return s
			}
		}
		s.value = ValueOf(raw)
		return s
	},
}

type set struct {
	key   Slot
	from  Slot
	value Value
}

func (s *set) Tick(a *Agent, n *Node) Status {
	v := s.value
	if s.from != NoSlot {
		if v = a.BB.Get(s.from); v.Kind() == KindNone {
			return Failure
		}
	}
	a.BB.Set(s.key, v)
	return Success
}
