//go:build !linux

package drivers

// Build needs Gobot's gpio and i2c drivers, which build only on Linux.
func Build(cfg *Config, opts Options) (*Robot, error) {
	return nil, ErrUnsupported
}
