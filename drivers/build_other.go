//go:build !linux

package drivers

// Build needs Gobot's gpio and i2c drivers, which build only on Linux.
func Build(cfg *Config, opts Options) (*Robot, error) {
	return nil, ErrUnsupported
}

// builtinBuild is empty: no kind is built here.
var builtinBuild map[string]func(*Builder) error
