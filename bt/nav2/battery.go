package nav2

import "github.com/botd-project/botd/bt"

var isBatteryLowType = bt.NodeType{
	Name: "IsBatteryLow", Kind: bt.Leaf, Category: "condition",
	Doc: "As in Nav2, reading the blackboard instead of a battery topic: SUCCESS when the battery level at `key` is at most " +
		"`min_battery`, FAILURE otherwise or while `key` holds nothing (no battery message yet). `key` defaults to battery.voltage " +
		"when `is_voltage` is set, else battery.percent (mind the scale: Nav2's percentage is a fraction of 1).",
	Params: []bt.Param{
		{Name: "min_battery", Type: bt.TNumber, Required: true, Doc: "level at or below which the battery is low"},
		{Name: "battery_topic", Type: bt.TString, Doc: "not used (Nav2's topic)"},
		{Name: "is_voltage", Type: bt.TBool, Default: false, Doc: "compare voltages rather than the charge"},
		{Name: "key", Type: bt.TKey, Doc: "the battery level's key (default battery.percent, or battery.voltage)"},
	},
	New: func(b *bt.Builder) bt.Behavior {
		key := "battery.percent"
		if v, _ := b.Raw("is_voltage"); v == true {
			key = "battery.voltage"
		}
		if k, ok := b.Raw("key"); ok {
			key, _ = k.(string)
		}
		return &batteryLow{min: b.Number("min_battery"), key: b.Key(key)}
	},
}

type batteryLow struct {
	min bt.Num
	key bt.Slot
}

func (l *batteryLow) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	level, ok := a.BB.Number(l.key)
	if !ok {
		return bt.Failure
	}
	min, ok := l.min.Get(a)
	if !ok {
		a.Emit(n.Index, "error", "IsBatteryLow: min_battery: "+a.NumProblem(l.min, "a number"))
		return bt.Error
	}
	if level <= min {
		return bt.Success
	}
	return bt.Failure
}

var isBatteryChargingType = bt.NodeType{
	Name: "IsBatteryCharging", Kind: bt.Leaf, Category: "condition",
	Doc: "As in Nav2, reading the blackboard instead of a battery topic: SUCCESS while the boolean at `key` is true, FAILURE " +
		"otherwise or while it holds nothing.",
	Params: []bt.Param{
		{Name: "battery_topic", Type: bt.TString, Doc: "not used (Nav2's topic)"},
		{Name: "key", Type: bt.TKey, Default: "battery.charging", Doc: "true while charging"},
	},
	New: func(b *bt.Builder) bt.Behavior { return batteryCharging{key: b.KeyParam("key")} },
}

type batteryCharging struct{ key bt.Slot }

func (c batteryCharging) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	if v, ok := a.BB.Get(c.key).Bool(); ok && v {
		return bt.Success
	}
	return bt.Failure
}
