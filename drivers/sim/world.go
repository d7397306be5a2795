package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sync"
	"time"
)

// Box is an axis-aligned obstacle (a crate, a bench, a tank). Name is optional; when given it
// must be unique in the world.
type Box struct {
	Name string `json:"name,omitempty" yaml:"name,omitempty"`
	Rect `yaml:",inline"`
}

// WorldSpec is the content of a world file: the yard (walled on all four sides) and the boxes in
// it, in metres. Robots start at home, (0, 0), which should be inside the yard and clear of
// boxes. The package reads JSON (it depends on nothing but Gobot and the standard library); the
// yaml tags let a caller decode a YAML file into a WorldSpec and call NewWorld. JSON example
// (testdata/yard.json is the default world):
//
//	{"bounds": {"min_x": -2, "min_y": -2, "max_x": 8, "max_y": 8},
//	 "boxes": [{"name": "crate", "min_x": 3, "min_y": -0.3, "max_x": 3.6, "max_y": 0.3}]}
type WorldSpec struct {
	Bounds Rect  `json:"bounds" yaml:"bounds"`
	Boxes  []Box `json:"boxes,omitempty" yaml:"boxes,omitempty"`
}

// Validate reports why the spec cannot be simulated, or nil.
func (s WorldSpec) Validate() error {
	if !s.Bounds.valid() {
		return fmt.Errorf("%w: bounds %+v must be finite with min < max", ErrInvalidWorld, s.Bounds)
	}
	names := make(map[string]bool, len(s.Boxes))
	for i, b := range s.Boxes {
		if !b.Rect.valid() {
			return fmt.Errorf("%w: box %d (%q) %+v must be finite with min < max", ErrInvalidWorld, i, b.Name, b.Rect)
		}
		if b.Name != "" && names[b.Name] {
			return fmt.Errorf("%w: duplicate box name %q", ErrInvalidWorld, b.Name)
		}
		names[b.Name] = true
	}
	return nil
}

// DefaultWorldSpec is the built-in yard: 10 m x 10 m, walls at x = -2, x = 8, y = -2, y = 8,
// home at (0, 0) heading +x. The patrol (0,0) → (2,0) → (2,2) → (0,2) → (0,0) is clear for a
// robot of radius up to 0.5 m. A forward-facing sonar sees the crate along the whole first leg
// (2.85 m at home, 0.85 m at (2,0) for the default robot) and the bench along the second leg.
func DefaultWorldSpec() WorldSpec {
	return WorldSpec{
		Bounds: Rect{MinX: -2, MinY: -2, MaxX: 8, MaxY: 8},
		Boxes: []Box{
			{Name: "crate", Rect: Rect{MinX: 3.0, MinY: -0.3, MaxX: 3.6, MaxY: 0.3}},
			{Name: "bench", Rect: Rect{MinX: 1.4, MinY: 3.2, MaxX: 2.6, MaxY: 3.6}},
			{Name: "tank", Rect: Rect{MinX: 5.0, MinY: 5.0, MaxX: 7.0, MaxY: 6.5}},
		},
	}
}

// World is a flat walled yard with box obstacles and the robots in it. It has no goroutine and
// never reads the clock: time only moves when the owner calls Step, so the same calls give the
// same poses, on virtual time (botd sim, tests) or real time (the daemon's loop calls Step).
// All state is behind one mutex because Gobot drivers call the adaptors from their own
// goroutines.
type World struct {
	// deliverMu is held through a whole Step, so the encoder edges of one step are handed
	// over, outside mu, before the next step queues more.
	deliverMu sync.Mutex
	mu        sync.Mutex
	spec      WorldSpec
	robots    []*Robot
	elapsed   time.Duration
}

// NewWorld returns an empty world (no robots) built from spec.
func NewWorld(spec WorldSpec) (*World, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	spec.Boxes = append([]Box(nil), spec.Boxes...)
	return &World{spec: spec}, nil
}

// DefaultWorld returns a new world built from DefaultWorldSpec.
func DefaultWorld() *World {
	w, err := NewWorld(DefaultWorldSpec())
	if err != nil {
		panic(err) // the built-in spec is valid; TestDefaultWorldFile keeps it so
	}
	return w
}

// ParseWorld decodes a JSON world file. Unknown fields are errors so a typo does not silently
// remove an obstacle.
func ParseWorld(data []byte) (*World, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var spec WorldSpec
	if err := dec.Decode(&spec); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidWorld, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: trailing data after the world object", ErrInvalidWorld)
	}
	return NewWorld(spec)
}

// LoadWorld reads and parses a JSON world file.
func LoadWorld(path string) (*World, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sim: load world: %w", err)
	}
	w, err := ParseWorld(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return w, nil
}

// Spec returns a copy of the world's layout (for dashboards and for saving).
func (w *World) Spec() WorldSpec {
	s := w.spec // immutable after NewWorld
	s.Boxes = append([]Box(nil), s.Boxes...)
	return s
}

// AddRobot places a new robot at home (0, 0) heading +x; zero fields of cfg get the defaults of
// DefaultRobotConfig. It panics on an empty or duplicate name or an invalid config: check
// outside input with RobotConfig.Validate first. Robots collide with walls and boxes, not with
// each other.
func (w *World) AddRobot(name string, cfg RobotConfig) *Robot {
	if name == "" {
		panic("sim: AddRobot with an empty name")
	}
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		panic(fmt.Sprintf("sim: AddRobot %q: %v", name, err))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range w.robots {
		if r.name == name {
			panic(fmt.Sprintf("sim: AddRobot: duplicate robot name %q", name))
		}
	}
	r := newRobot(w, name, cfg)
	w.robots = append(w.robots, r)
	return r
}

// Robot returns the robot with that name, or nil.
func (w *World) Robot(name string) *Robot {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range w.robots {
		if r.name == name {
			return r
		}
	}
	return nil
}

// Robots returns the robots in the order they were added.
func (w *World) Robots() []*Robot {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]*Robot(nil), w.robots...)
}

// Step advances the world by dt: every robot drives with its current wheel commands, collides,
// and drains its battery. dt <= 0 does nothing.
func (w *World) Step(dt time.Duration) {
	if dt <= 0 {
		return
	}
	w.deliverMu.Lock()
	defer w.deliverMu.Unlock()
	w.mu.Lock()
	w.elapsed += dt
	for _, r := range w.robots {
		r.step(dt.Seconds())
	}
	robots := w.robots // robots are only ever appended
	w.mu.Unlock()
	// The encoders' edges go to the robots' boards now, on this goroutine, with no lock held:
	// the handlers may call into the world.
	for _, r := range robots {
		w.mu.Lock()
		edges, deliver := r.takeEdges()
		w.mu.Unlock()
		if deliver != nil && len(edges) > 0 {
			deliver(edges)
		}
	}
}

// Elapsed is the total simulated time passed to Step.
func (w *World) Elapsed() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.elapsed
}

// Raycast returns the distance from (x, y) along angle (radians, counter-clockwise from +x) to
// the first wall or box; 0 if (x, y) is outside the yard or inside a box.
func (w *World) Raycast(x, y, angle float64) float64 {
	return w.raycast(x, y, angle) // spec is immutable: no lock needed
}

func (w *World) raycast(x, y, angle float64) float64 {
	dx, dy := math.Cos(angle), math.Sin(angle)
	t := w.spec.Bounds.rayExit(x, y, dx, dy)
	for _, b := range w.spec.Boxes {
		t = math.Min(t, b.rayEnter(x, y, dx, dy))
	}
	return t
}

// clearance is how far a circle of radius at (x, y) is from touching anything: negative when it
// overlaps a wall or box.
func (w *World) clearance(x, y, radius float64) float64 {
	b := w.spec.Bounds
	c := math.Min(math.Min(x-b.MinX, b.MaxX-x), math.Min(y-b.MinY, b.MaxY-y))
	for _, box := range w.spec.Boxes {
		c = math.Min(c, box.signedDistance(x, y))
	}
	return c - radius
}
