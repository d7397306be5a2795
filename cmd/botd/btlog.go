package main

import (
	"fmt"
	"path/filepath"

	"github.com/botd-project/botd/missions/runner"
	"github.com/botd-project/botd/telemetry/groot2"
)

// BTLogConfig is the `btlog:` section: the daemon records each mission
// run as a .btlog file Groot2 replays (GROOT2.md), in a directory it keeps
// bounded. Off unless dir is set.
type BTLogConfig struct {
	// Dir holds the recordings; a relative dir is under the state
	// directory.
	Dir string `yaml:"dir"`
	// MaxFiles is how many recordings are kept, the oldest removed
	// first [20].
	MaxFiles int `yaml:"max_files"`
	// MaxFileMiB bounds one recording: it stops there, the file stays
	// valid [16].
	MaxFileMiB int64 `yaml:"max_file_mib"`
	// MaxTotalMiB bounds the directory [256].
	MaxTotalMiB int64 `yaml:"max_total_mib"`
}

// Bounds of the btlog section.
const (
	maxBTLogFiles    = 10000
	maxBTLogFileMiB  = 1024
	maxBTLogTotalMiB = 64 << 10
)

func (b BTLogConfig) validate(bad func(field, format string, args ...any)) {
	if b.MaxFiles < 0 || b.MaxFiles > maxBTLogFiles {
		bad("btlog.max_files", "%d: want 0 (20) to %d", b.MaxFiles, maxBTLogFiles)
	}
	if b.MaxFileMiB < 0 || b.MaxFileMiB > maxBTLogFileMiB {
		bad("btlog.max_file_mib", "%d: want 0 (16) to %d", b.MaxFileMiB, maxBTLogFileMiB)
	}
	if b.MaxTotalMiB < 0 || b.MaxTotalMiB > maxBTLogTotalMiB {
		bad("btlog.max_total_mib", "%d: want 0 (256) to %d", b.MaxTotalMiB, maxBTLogTotalMiB)
	}
	file := b.MaxFileMiB
	if file == 0 {
		file = groot2.DefaultRecordFileBytes >> 20
	}
	if b.MaxTotalMiB > 0 && b.MaxTotalMiB < file {
		bad("btlog.max_total_mib", "%d is below max_file_mib (%d): one recording would not fit", b.MaxTotalMiB, file)
	}
}

// dir is where the recordings go ("" when off).
func (b BTLogConfig) dir(stateDir string) string {
	if b.Dir == "" || filepath.IsAbs(b.Dir) {
		return b.Dir
	}
	return filepath.Join(stateDir, b.Dir)
}

// recorder makes the runner's recorder when the section asks for one (a
// nil interface when off).
func (s *system) recorder(cfg *Config, stateDir string) (runner.Recorder, error) {
	dir := cfg.BTLog.dir(stateDir)
	if dir == "" {
		return nil, nil
	}
	rec, err := groot2.NewRecorder(groot2.RecorderConfig{Dir: dir, MaxFiles: cfg.BTLog.MaxFiles,
		MaxFileBytes: cfg.BTLog.MaxFileMiB << 20, MaxTotalBytes: cfg.BTLog.MaxTotalMiB << 20,
		Registry: s.reg, Logger: s.log.With("part", "btlog")})
	if err != nil {
		return nil, fmt.Errorf("btlog.dir %s: %w", dir, err)
	}
	s.btlog = rec
	s.log.Info("recording each mission as a .btlog", "dir", dir)
	return rec, nil
}
