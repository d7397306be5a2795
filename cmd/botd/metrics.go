package main

import (
	"bytes"
	"context"
	"errors"
	"math"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/botd-project/botd/telemetry/protocol"
)

// The metrics endpoint writes Prometheus's text exposition format
// (version 0.0.4) itself. The Prometheus client library and the protobuf
// runtime it links cost about 3 MB of every daemon's binary, and of its
// resident memory (their package initialisation touches their tables),
// whether the endpoint is configured or not; the format is a few lines of
// text. Every figure is read at scrape time: nothing is kept or updated
// per tick. TestMetricsExposition parses the output with Prometheus's own
// parser.

const metricsContentType = "text/plain; version=0.0.4; charset=utf-8"

// metricsWriter writes metric families in the text format. Samples of a
// family follow its HELP and TYPE lines; labels are written sorted by
// name, as the Prometheus client writes them.
type metricsWriter struct {
	b     bytes.Buffer
	robot [][2]string // labels on every botd_ sample
}

func (w *metricsWriter) family(name, typ, help string) {
	w.b.WriteString("# HELP ")
	w.b.WriteString(name)
	w.b.WriteByte(' ')
	w.b.WriteString(strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(help))
	w.b.WriteString("\n# TYPE ")
	w.b.WriteString(name)
	w.b.WriteByte(' ')
	w.b.WriteString(typ)
	w.b.WriteByte('\n')
}

// sample writes one sample; labels are name, value pairs.
func (w *metricsWriter) sample(name string, v float64, labels ...string) {
	ls := make([][2]string, 0, len(labels)/2+len(w.robot))
	for i := 0; i+1 < len(labels); i += 2 {
		ls = append(ls, [2]string{labels[i], labels[i+1]})
	}
	if strings.HasPrefix(name, "botd_") {
		ls = append(ls, w.robot...)
	}
	slices.SortFunc(ls, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	w.b.WriteString(name)
	if len(ls) > 0 {
		w.b.WriteByte('{')
		for i, l := range ls {
			if i > 0 {
				w.b.WriteByte(',')
			}
			w.b.WriteString(l[0])
			w.b.WriteString(`="`)
			w.b.WriteString(strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(l[1]))
			w.b.WriteByte('"')
		}
		w.b.WriteByte('}')
	}
	w.b.WriteByte(' ')
	switch {
	case math.IsInf(v, 1):
		w.b.WriteString("+Inf")
	case math.IsInf(v, -1):
		w.b.WriteString("-Inf")
	case math.IsNaN(v):
		w.b.WriteString("NaN")
	default:
		w.b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	}
	w.b.WriteByte('\n')
}

// one writes a family of a single unlabelled sample.
func (w *metricsWriter) one(name, typ, help string, v float64) {
	w.family(name, typ, help)
	w.sample(name, v)
}

func b2f(v bool) float64 {
	if v {
		return 1
	}
	return 0
}

// writeDaemonMetrics writes the runner's and telemetry's figures.
func writeDaemonMetrics(w *metricsWriter, s *system) {
	st := s.runner.State()
	m := s.tele.Metrics()
	w.one("botd_ticks_total", "counter", "Ticks run since the daemon started.", float64(st.Tick.Count))
	w.one("botd_tick_overruns_total", "counter", "Tick deadlines missed.", float64(st.Tick.Overruns))
	w.one("botd_tick_rate_hz", "gauge", "Current tick rate.", st.Tick.Hz)
	w.one("botd_tick_duration_seconds", "gauge", "Duration of the last tick.", float64(st.Tick.LastUs)/1e6)
	w.family("botd_tick_jitter_seconds", "gauge", "Tick start lateness over recent ticks.")
	w.sample("botd_tick_jitter_seconds", float64(st.Tick.JitterP50Us)/1e6, "quantile", "0.5")
	w.sample("botd_tick_jitter_seconds", float64(st.Tick.JitterP99Us)/1e6, "quantile", "0.99")
	w.sample("botd_tick_jitter_seconds", float64(st.Tick.JitterMaxUs)/1e6, "quantile", "1")
	w.family("botd_mode", "gauge", "1 for the daemon's current mode.")
	for _, mode := range []string{protocol.ModeStarting, protocol.ModeIdle, protocol.ModeRunning, protocol.ModePaused, protocol.ModeFailsafe, protocol.ModeEStop} {
		w.sample("botd_mode", b2f(st.Mode == mode), "mode", mode)
	}
	w.one("botd_estop", "gauge", "1 while the e-stop is engaged.", b2f(st.EStop))
	w.one("botd_failsafe_active", "gauge", "1 while a failsafe is active.", b2f(st.Failsafe.Active))
	if st.Battery != nil {
		w.one("botd_battery_percent", "gauge", "Battery charge.", st.Battery.Percent)
	}
	w.family("botd_link_up", "gauge", "1 while the link is up.")
	w.sample("botd_link_up", b2f(st.Link.Broker), "link", "broker")
	w.sample("botd_link_up", b2f(st.Link.GCSOnline), "link", "gcs")
	w.family("botd_queue_depth", "gauge", "Telemetry queue depths.")
	w.sample("botd_queue_depth", float64(m.Queues.Events), "queue", "events")
	w.sample("botd_queue_depth", float64(m.Queues.Outbox), "queue", "outbox")
	w.sample("botd_queue_depth", float64(m.Queues.Commands), "queue", "commands")
	w.family("botd_dropped_total", "counter", "Telemetry messages dropped.")
	w.sample("botd_dropped_total", float64(m.Dropped.Events), "what", "events")
	w.sample("botd_dropped_total", float64(m.Dropped.Outbox), "what", "outbox")
	w.sample("botd_dropped_total", float64(m.Dropped.Commands), "what", "commands")
	w.sample("botd_dropped_total", float64(m.Dropped.Publish), "what", "publish")
	w.one("botd_mqtt_reconnects_total", "counter", "MQTT reconnections.", float64(m.Reconnects))
}

// writeGoMetrics writes the Go runtime's figures under the names the
// Prometheus client's Go collector gives them (a subset).
func writeGoMetrics(w *metricsWriter) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	threads, _ := runtime.ThreadCreateProfile(nil)
	w.family("go_info", "gauge", "Information about the Go environment.")
	w.sample("go_info", 1, "version", runtime.Version())
	w.one("go_goroutines", "gauge", "Number of goroutines that currently exist.", float64(runtime.NumGoroutine()))
	w.one("go_threads", "gauge", "Number of OS threads created.", float64(threads))
	w.one("go_sched_gomaxprocs_threads", "gauge", "The current runtime.GOMAXPROCS setting.", float64(runtime.GOMAXPROCS(0)))
	rm := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(rm)
	for i, f := range []struct{ name, help string }{
		{"go_gc_gogc_percent", "Heap size target percentage configured by the user (GOGC, gc.percent), or -1 when off."},
		{"go_gc_gomemlimit_bytes", "Go runtime memory limit configured by the user (GOMEMLIMIT, gc.memory_limit)."},
	} {
		if rm[i].Value.Kind() == metrics.KindUint64 {
			w.one(f.name, "gauge", f.help, float64(int64(rm[i].Value.Uint64())))
		}
	}
	w.family("go_gc_duration_seconds", "summary", "Stop-the-world pause durations of the garbage collector.")
	w.sample("go_gc_duration_seconds_sum", float64(ms.PauseTotalNs)/1e9)
	w.sample("go_gc_duration_seconds_count", float64(ms.NumGC))
	w.one("go_memstats_alloc_bytes", "gauge", "Number of bytes allocated in heap and currently in use.", float64(ms.HeapAlloc))
	w.one("go_memstats_alloc_bytes_total", "counter", "Total number of bytes allocated in heap until now.", float64(ms.TotalAlloc))
	w.one("go_memstats_heap_objects", "gauge", "Number of currently allocated objects.", float64(ms.HeapObjects))
	w.one("go_memstats_heap_inuse_bytes", "gauge", "Number of heap bytes in spans in use.", float64(ms.HeapInuse))
	w.one("go_memstats_heap_idle_bytes", "gauge", "Number of heap bytes waiting to be used.", float64(ms.HeapIdle))
	w.one("go_memstats_heap_released_bytes", "gauge", "Number of heap bytes released to the OS.", float64(ms.HeapReleased))
	w.one("go_memstats_stack_inuse_bytes", "gauge", "Number of bytes obtained from the OS for goroutine stacks and in use.", float64(ms.StackInuse))
	w.one("go_memstats_sys_bytes", "gauge", "Number of bytes obtained from the OS.", float64(ms.Sys))
	w.one("go_memstats_next_gc_bytes", "gauge", "Heap size at which the next garbage collection will run.", float64(ms.NextGC))
	w.one("go_memstats_last_gc_time_seconds", "gauge", "Time of the last garbage collection, seconds since 1970.", float64(ms.LastGC)/1e9)
}

// writeProcessMetrics writes the process's figures from /proc (Linux),
// under the names of the Prometheus client's process collector; elsewhere
// it writes nothing.
func writeProcessMetrics(w *metricsWriter) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return
	}
	// The fields after the command name, which is in parentheses and may
	// hold spaces: state is field 3 of proc(5), so f[i] is field i+3.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 22 {
		return
	}
	num := func(field int) float64 {
		v, _ := strconv.ParseFloat(f[field-3], 64)
		return v
	}
	// USER_HZ is 100 on every Linux architecture botd runs on.
	const userHZ = 100
	// CPU time from getrusage and resident pages from statm: exact, and
	// true under qemu-user too, which fakes most of /proc/self/stat's
	// fields as 0 (the ARM tests run there); stat's are the fallback.
	cpu := (num(14) + num(15)) / userHZ
	if d, ok := processCPU(); ok {
		cpu = d.Seconds()
	}
	rss := num(24)
	if statm, err := os.ReadFile("/proc/self/statm"); err == nil {
		if g := strings.Fields(string(statm)); len(g) > 1 {
			if v, err := strconv.ParseFloat(g[1], 64); err == nil {
				rss = v
			}
		}
	}
	w.one("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.", cpu)
	w.one("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", num(23))
	w.one("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", rss*float64(os.Getpagesize()))
	if boot := bootTime(); boot > 0 {
		w.one("process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.", boot+num(22)/userHZ)
	}
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		w.one("process_open_fds", "gauge", "Number of open file descriptors.", float64(len(fds)))
	}
	if max := maxFDs(); max > 0 {
		w.one("process_max_fds", "gauge", "Maximum number of open file descriptors.", max)
	}
}

// bootTime is the system's boot time from /proc/stat, in seconds since
// 1970, or 0.
func bootTime() float64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "btime "); ok {
			t, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return t
		}
	}
	return 0
}

// maxFDs is the soft limit on open files from /proc/self/limits, or 0.
func maxFDs() float64 {
	b, err := os.ReadFile("/proc/self/limits")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Max open files"); ok {
			if f := strings.Fields(v); len(f) > 0 {
				n, _ := strconv.ParseFloat(f[0], 64)
				return n
			}
		}
	}
	return 0
}

// metricsHandler serves the metrics of s.
func metricsHandler(s *system) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w := &metricsWriter{robot: [][2]string{{"robot", s.cfg.Robot}}}
		writeDaemonMetrics(w, s)
		writeGoMetrics(w)
		writeProcessMetrics(w)
		rw.Header().Set("Content-Type", metricsContentType)
		rw.Write(w.b.Bytes())
	})
}

// serveMetrics serves /metrics on addr until ctx is done.
func serveMetrics(ctx context.Context, s *system, addr string) error {
	mux := http.NewServeMux()
	mux.Handle("/metrics", metricsHandler(s))
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	s.log.Info("metrics", "url", "http://"+l.Addr().String()+"/metrics")
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
