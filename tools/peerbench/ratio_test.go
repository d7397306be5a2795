package peerbench

import (
	"slices"
	"testing"
	"time"
)

// ratioBatch is how many ticks one timed batch runs (about 0.1 ms).
const ratioBatch = 250

// BenchmarkOneRatio ticks one botd agent and one go-behaviortree agent in
// alternating batches of ratioBatch ticks, each batch timed on its own,
// so both engines meet the same load of a shared machine. An op is one
// pair of batches. It reports each engine's ns/tick from its median batch
// and from its fastest batch, and botd's over go-behaviortree's for both
// (botd/gobt-median is the figure to quote: the median pair is the least
// disturbed comparison the run gives; -fastest is a lower bound of the
// noise).
func BenchmarkOneRatio(b *testing.B) {
	r := loadReference(b)
	botd := r.NewBotdAgent(0)
	gobt, err := r.NewGoBTAgent(nil)
	if err != nil {
		b.Fatal(err)
	}
	checkStatuses(b, "botd", botd)
	checkStatuses(b, "gobt", gobt)
	dBotd := make([]time.Duration, 0, b.N)
	dGobt := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		for range ratioBatch {
			botd.Tick()
		}
		t1 := time.Now()
		for range ratioBatch {
			gobt.Tick()
		}
		t2 := time.Now()
		dBotd = append(dBotd, t1.Sub(t0))
		dGobt = append(dGobt, t2.Sub(t1))
	}
	b.StopTimer()
	slices.Sort(dBotd)
	slices.Sort(dGobt)
	perTick := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / ratioBatch }
	mb, mg := perTick(dBotd[len(dBotd)/2]), perTick(dGobt[len(dGobt)/2])
	fb, fg := perTick(dBotd[0]), perTick(dGobt[0])
	b.ReportMetric(mb, "botd-ns/tick")
	b.ReportMetric(mg, "gobt-ns/tick")
	b.ReportMetric(mb/mg, "botd/gobt-median")
	b.ReportMetric(fb/fg, "botd/gobt-fastest")
	b.ReportMetric(0, "ns/op")
}
