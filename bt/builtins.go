package bt

// registerBuiltins adds the node catalog of the mission contract (section
// 3). Device leaves are registered by the drivers package.
func registerBuiltins(r *Registry) {
	for _, t := range []NodeType{
		// composites
		sequenceType, priorityType, memSequenceType, memPriorityType,
		parallelType, randomSequenceType, randomPriorityType,
		pipelineSequenceType, recoveryType, roundRobinType,
		// decorators
		inverterType, succeederType, failerType,
		repeaterType, repeatUntilFailureType, repeatUntilSuccessType,
		limiterType, maxTimeType, delayType, regulatorType, runOnceType,
		cooldownType, monitorType, gateType,
		// BehaviorTree.CPP's own semantics, under its names
		seqWithMemoryType, btParallelType, parallelAllType, ifThenElseType, whileDoElseType,
		btRepeatType, btRetryType, keepRunningType, timeoutType, preconditionType,
		waitValueUpdateType, skipUnlessUpdatedType, prePostType, tryCatchType, standInType, pauseResumeType, pathLongerType,
		scriptType, scriptConditionType, unsetType, entryUpdatedType, testNodeType,
		// Nav2's nodes that need only the blackboard
		nonblockingSequenceType, persistentSequenceType,
		rateControllerType, distanceControllerType, speedControllerType, singleTriggerType,
		goalUpdatedControllerType, goalUpdaterType,
		goalUpdatedType, globalUpdatedGoalType, timeExpiredType, pathExpiringTimerType,
		isBatteryLowType, isBatteryChargingType,
		// leaves
		stubType, passThroughType,
		succeedType, failType, runningType, errorType,
		waitType, checkType, exprType, setType, logType, subTreeType,
		// synchronization, child trees, state machines
		barrierType, dynamicSubTreeType, stateMachineType,
	} {
		register(r, t)
	}
	for _, ts := range [][]NodeType{switchTypes, loopTypes, btcppExtraTypes} {
		for _, t := range ts {
			register(r, t)
		}
	}
}

// register adds a built-in; the engine trusts its own leaves not to panic,
// except those that run expressions.
func register(r *Registry, t NodeType) {
	switch t.Name {
	case "Expr", "Script", "ScriptCondition", "TestNode":
	default:
		t.trusted = true
	}
	r.Register(t)
}

// msParam declares a duration parameter in milliseconds.
func msParam(name, doc string, required bool) Param {
	return Param{Name: name, Type: TNumber, Required: required, Min: Float(0), Unit: "ms", Doc: doc,
		Aliases: msAliases(name)}
}

func msAliases(name string) []string {
	if name == "ms" {
		return []string{"msec", "milliseconds", "maxTime"}
	}
	return nil
}

// readMs reads a millisecond parameter as nanoseconds; ok is false when a
// referenced key is missing or not a non-negative number.
func readMs(a *Agent, p Num) (int64, bool) {
	v, ok := p.Get(a)
	if !ok || v < 0 || v != v {
		return 0, false
	}
	return int64(v * 1e6), true
}
