//go:build !linux

package odometry

import "github.com/botd-project/botd/drivers"

// build is never called off Linux (drivers.Build is not available there).
func build(*drivers.Builder) error { return drivers.ErrUnsupported }
