package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/botd-project/botd/telemetry/protocol"
)

// metricsCollector exposes the runner's and telemetry's figures to
// Prometheus, read at scrape time (nothing is kept or updated per tick).
type metricsCollector struct {
	s     *system
	descs map[string]*prometheus.Desc
}

func newMetricsCollector(s *system) *metricsCollector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("botd_"+name, help, labels, prometheus.Labels{"robot": s.cfg.Robot})
	}
	return &metricsCollector{s: s, descs: map[string]*prometheus.Desc{
		"ticks":      d("ticks_total", "Ticks run since the daemon started."),
		"overruns":   d("tick_overruns_total", "Tick deadlines missed."),
		"hz":         d("tick_rate_hz", "Current tick rate."),
		"last":       d("tick_duration_seconds", "Duration of the last tick."),
		"jitter":     d("tick_jitter_seconds", "Tick start lateness over recent ticks.", "quantile"),
		"mode":       d("mode", "1 for the daemon's current mode.", "mode"),
		"estop":      d("estop", "1 while the e-stop is engaged."),
		"failsafe":   d("failsafe_active", "1 while a failsafe is active."),
		"battery":    d("battery_percent", "Battery charge."),
		"link":       d("link_up", "1 while the link is up.", "link"),
		"queue":      d("queue_depth", "Telemetry queue depths.", "queue"),
		"dropped":    d("dropped_total", "Telemetry messages dropped.", "what"),
		"reconnects": d("mqtt_reconnects_total", "MQTT reconnections."),
	}}
}

func (c *metricsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

func (c *metricsCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.s.runner.State()
	m := c.s.tele.Metrics()
	g := func(name string, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(c.descs[name], prometheus.GaugeValue, v, labels...)
	}
	cnt := func(name string, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(c.descs[name], prometheus.CounterValue, v, labels...)
	}
	b := func(v bool) float64 {
		if v {
			return 1
		}
		return 0
	}
	cnt("ticks", float64(st.Tick.Count))
	cnt("overruns", float64(st.Tick.Overruns))
	g("hz", st.Tick.Hz)
	g("last", float64(st.Tick.LastUs)/1e6)
	g("jitter", float64(st.Tick.JitterP50Us)/1e6, "0.5")
	g("jitter", float64(st.Tick.JitterP99Us)/1e6, "0.99")
	g("jitter", float64(st.Tick.JitterMaxUs)/1e6, "1")
	for _, mode := range []string{protocol.ModeStarting, protocol.ModeIdle, protocol.ModeRunning, protocol.ModePaused, protocol.ModeFailsafe, protocol.ModeEStop} {
		g("mode", b(st.Mode == mode), mode)
	}
	g("estop", b(st.EStop))
	g("failsafe", b(st.Failsafe.Active))
	if st.Battery != nil {
		g("battery", st.Battery.Percent)
	}
	g("link", b(st.Link.Broker), "broker")
	g("link", b(st.Link.GCSOnline), "gcs")
	g("queue", float64(m.Queues.Events), "events")
	g("queue", float64(m.Queues.Outbox), "outbox")
	g("queue", float64(m.Queues.Commands), "commands")
	cnt("dropped", float64(m.Dropped.Events), "events")
	cnt("dropped", float64(m.Dropped.Outbox), "outbox")
	cnt("dropped", float64(m.Dropped.Commands), "commands")
	cnt("dropped", float64(m.Dropped.Publish), "publish")
	cnt("reconnects", float64(m.Reconnects))
}

// serveMetrics serves /metrics on addr until ctx is done.
func serveMetrics(ctx context.Context, s *system, addr string) error {
	reg := prometheus.NewRegistry()
	reg.MustRegister(newMetricsCollector(s), collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
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
