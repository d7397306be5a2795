package drivers

// Device kinds still kept in this package; each moves to its family's package.
const (
	KindRange   = "range"
	KindBattery = "battery"
	KindIMU     = "imu"
	KindBump    = "bump"
	KindPose    = "pose"
)

// AddBuiltin adds the kinds this package still holds to r.
func AddBuiltin(r *Registry) {
	for _, k := range []KindInfo{
		{Name: KindRange, Doc: "an HC-SR04 ultrasonic range finder", New: func() Spec { return &RangeConfig{} }},
		{Name: KindBattery, Doc: "a battery monitor (analog pin or ADS1115)", New: func() Spec { return &BatteryConfig{} }},
		{Name: KindIMU, Doc: "an MPU6050 IMU", New: func() Spec { return &IMUConfig{} }},
		{Name: KindBump, Doc: "a bump switch", New: func() Spec { return &BumpConfig{} }},
		{Name: KindPose, Doc: "the simulator's ground-truth pose", New: func() Spec { return &PoseConfig{} }},
	} {
		k.Build = builtinBuild[k.Name]
		r.Add(k)
	}
}

// Builtin returns a registry of the kinds this package still holds.
func Builtin() *Registry {
	r := NewRegistry()
	AddBuiltin(r)
	return r
}
