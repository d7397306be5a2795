// Package configs holds botd's example configurations and missions. They
// are embedded so that `go run ./cmd/botd` runs the default simulated
// rover with no files on disk; each is also loaded by a test.
package configs

import "embed"

// FS holds every config (*.yaml) and the missions/ directory.
//
//go:embed *.yaml missions
var FS embed.FS

// Default is the config botd runs with no -config flag: the simulated
// rover, the embedded broker and the demo mission.
const Default = "default.yaml"
