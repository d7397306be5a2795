package sim

import "math"

// BatteryState is the true state of a robot's pack.
type BatteryState struct {
	Voltage float64 // V at the terminals, including the sag of the present load
	Charge  float64 // state of charge, 0..1
	Current float64 // A drawn over the last Step
}

// lipoCell is the resting voltage of one LiPo cell at charge 0, 0.05, ..., 1.
var lipoCell = [...]float64{3.27, 3.61, 3.69, 3.71, 3.73, 3.75, 3.77, 3.79, 3.80, 3.82, 3.84,
	3.85, 3.87, 3.91, 3.95, 3.98, 4.02, 4.08, 4.11, 4.15, 4.20}

func cellVoltage(charge float64) float64 {
	pos := math.Min(math.Max(charge, 0), 1) * float64(len(lipoCell)-1)
	i := int(pos)
	if i >= len(lipoCell)-1 {
		return lipoCell[len(lipoCell)-1]
	}
	return lipoCell[i] + (pos-float64(i))*(lipoCell[i+1]-lipoCell[i])
}

// Battery returns the pack's true voltage, charge and current.
func (r *Robot) Battery() BatteryState {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	return BatteryState{Voltage: r.voltageLocked(), Charge: r.charge, Current: r.current}
}

// SetBatteryCharge sets the state of charge (clamped to 0..1), e.g. to test a low-battery
// failsafe without simulating hours of driving.
func (r *Robot) SetBatteryCharge(charge float64) {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	r.charge = math.Min(math.Max(charge, 0), 1)
}

func (r *Robot) voltageLocked() float64 {
	b := r.cfg.Battery
	return math.Max(0, float64(b.Cells)*cellVoltage(r.charge)-r.current*b.InternalResistance)
}

// batteryCounts is the ADC reading: volts / ADCFullScale * ADCMax, rounded and clamped.
func (r *Robot) batteryCounts() (int, error) {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	f := r.faults[SensorBattery]
	switch {
	case f.err != nil:
		return 0, f.err
	case f.silent:
		return 0, nil
	}
	c := math.Round(r.voltageLocked() / r.cfg.Battery.ADCFullScale * ADCMax)
	return int(math.Min(math.Max(c, 0), ADCMax)), nil
}

func (r *Robot) bumpSwitch() (int, error) {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	f := r.faults[SensorBump]
	switch {
	case f.err != nil:
		return 0, f.err
	case f.silent || !r.bumpedLocked():
		return 0, nil
	}
	return 1, nil
}
