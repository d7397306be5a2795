package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// parseExposition parses text exposition with Prometheus's own parser.
func parseExposition(t *testing.T, body string) map[string]float64 {
	t.Helper()
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("Prometheus's parser refuses the exposition: %v\n%s", err, body)
	}
	got := map[string]float64{}
	for name, f := range fams {
		for _, m := range f.Metric {
			key := name
			ls := m.Label
			slices.SortFunc(ls, func(a, b *dto.LabelPair) int { return strings.Compare(a.GetName(), b.GetName()) })
			for _, l := range ls {
				key += "|" + l.GetName() + "=" + l.GetValue()
			}
			switch {
			case m.Gauge != nil:
				got[key] = m.Gauge.GetValue()
			case m.Counter != nil:
				got[key] = m.Counter.GetValue()
			case m.Summary != nil:
				got[key+"|count"] = float64(m.Summary.GetSampleCount())
			}
		}
	}
	return got
}

// Label values and help texts with the characters the format escapes,
// special floats, labels out of order and a summary are read back by
// Prometheus's parser as they were written.
func TestMetricsExposition(t *testing.T) {
	w := &metricsWriter{robot: [][2]string{{"robot", `r"1\` + "\n2"}}}
	w.family("botd_x", "gauge", "A help text with a \\ and a\nnewline.")
	w.sample("botd_x", 1.5, "what", "a")
	w.sample("botd_x", math.Inf(1), "what", "inf")
	w.sample("botd_x", math.Inf(-1), "what", "-inf")
	w.sample("botd_x", 1e-9, "what", "tiny")
	w.one("botd_big_total", "counter", "Big.", 1<<62)
	w.family("go_y", "summary", "Pauses.")
	w.sample("go_y_sum", 0.25)
	w.sample("go_y_count", 7)
	defer debug.SetGCPercent(debug.SetGCPercent(77))
	writeGoMetrics(w)
	writeProcessMetrics(w)
	body := w.b.String()
	// labels sorted by name, as the Prometheus client writes them
	if line := `botd_x{robot="r\"1\\\n2",what="a"} 1.5`; !strings.Contains(body, line+"\n") {
		t.Errorf("no line %s in\n%s", line, body)
	}
	got := parseExposition(t, body)
	robot := "|robot=r\"1\\\n2"
	for key, want := range map[string]float64{
		"botd_x" + robot + "|what=a":           1.5,
		"botd_x" + robot + "|what=inf":         math.Inf(1),
		"botd_x" + robot + "|what=-inf":        math.Inf(-1),
		"botd_x" + robot + "|what=tiny":        1e-9,
		"botd_big_total" + robot:               1 << 62,
		"go_y|count":                           7,
		"go_info|version=" + runtime.Version(): 1,
	} {
		if v, ok := got[key]; !ok || v != want {
			t.Errorf("%q: got %v (present %v), want %v", key, v, ok, want)
		}
	}
	for _, name := range []string{"go_goroutines", "go_threads", "go_memstats_alloc_bytes", "go_memstats_sys_bytes", "process_resident_memory_bytes", "process_cpu_seconds_total", "process_start_time_seconds", "process_open_fds", "process_max_fds"} {
		if got[name] <= 0 {
			t.Errorf("%s = %v, want a positive figure", name, got[name])
		}
	}
	if start := got["process_start_time_seconds"]; math.Abs(start-float64(processStart.Unix())) > 5 {
		t.Errorf("process_start_time_seconds = %v, the process started at %v", start, processStart.Unix())
	}
	if v, ok := got["go_gc_gogc_percent"]; !ok || v != 77 {
		t.Errorf("go_gc_gogc_percent = %v (present %v)", v, ok)
	}
}

var processStart = time.Now()
