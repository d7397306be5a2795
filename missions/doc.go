// Package missions turns mission documents into runnable trees: decoding
// (botd JSON and YAML, Behavior3 Editor JSON, BehaviorTree.CPP v4 XML),
// validation that reports every problem with its JSON path, compilation
// into a shared bt.Tree, and saving back without loss.
//
// It never talks MQTT and never touches hardware: the daemon feeds it
// bytes and hands the compiled tree to the runner.
package missions
