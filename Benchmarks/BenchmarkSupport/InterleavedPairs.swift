// A flow and its floor measured in turns inside one benchmark: flow block, floor block, flow block, floor block, …,
// and each pair's ratio recorded (issue 29). Why: measured in two benchmarks, seconds or minutes apart, a flow and its
// floor see two different machines whenever other processes come and go; on a shared 2-core host one run's ratio
// moved by 0.3 that way. The two blocks of a pair are a fraction of a second apart, so they see nearly the same
// machine, and the median over the pairs drops the few pairs a burst of load hit on one side only.
//
// One benchmark iteration is one pair (the warm-up iterations are pairs too, not recorded). Metrics, in the
// histogramPercentiles export (their units pinned to plain counts, so that no automatic K/M scaling rounds them):
//   "pair ratio (x1000)": each pair's ratio x 1000; its p50 is the median of the pair ratios.
//   "flow (ns per op)", "floor (ns per op)": each block's cost per operation (wall or CPU time, as the row says).
//   "pairs": the pair's number, 1, 2, …; its p100 is how many pairs the median is of.
// A benchmark that records two kinds of pairs (the verifier's CPU against its floor, and two instances against one)
// gives each a label, which prefixes its metrics' names.

import Benchmark
import Foundation

public struct InterleavedPairs: Sendable {
    /// `cost`: the ratio is flow / floor (lower is better: time or CPU per operation against the floor's).
    /// `rate`: floor / flow (higher is better: the flow's rate as a share of the floor's).
    public enum Ratio: Sendable { case cost, rate }

    public let ratio: Ratio
    public let ratioMetric: BenchmarkMetric
    public let flowMetric: BenchmarkMetric
    public let floorMetric: BenchmarkMetric
    public let pairsMetric: BenchmarkMetric

    /// `label` prefixes the metrics' names, for a benchmark that records two kinds of pairs.
    public init(_ ratio: Ratio = .cost, label: String = "") {
        self.ratio = ratio
        let prefix = label.isEmpty ? "" : label + " "
        ratioMetric = .custom(prefix + "pair ratio (x1000)", polarity: ratio == .cost ? .prefersSmaller : .prefersLarger, useScalingFactor: false)
        flowMetric = .custom(prefix + "flow (ns per op)", polarity: .prefersSmaller, useScalingFactor: false)
        floorMetric = .custom(prefix + "floor (ns per op)", polarity: .prefersSmaller, useScalingFactor: false)
        pairsMetric = .custom(prefix + "pairs", polarity: .prefersLarger, useScalingFactor: false)
    }

    public var metrics: [BenchmarkMetric] { [ratioMetric, flowMetric, floorMetric, pairsMetric] }

    /// `pairs` recorded pairs after `warmup` unrecorded ones, with the metrics of `recording` (these pairs' by
    /// default). `maxDuration` only guards against a hung run: the number of pairs bounds the benchmark, so that a
    /// row's N does not depend on the machine's load.
    public func configuration(
        pairs: Int, warmup: Int = 1, recording: [InterleavedPairs]? = nil, maxDuration: Duration = .seconds(900),
        setup: Benchmark.BenchmarkSetupHook? = nil, teardown: Benchmark.BenchmarkTeardownHook? = nil
    ) -> Benchmark.Configuration {
        let metrics = (recording ?? [self]).flatMap(\.metrics)
        return Benchmark.Configuration(
            metrics: metrics, units: Dictionary(uniqueKeysWithValues: metrics.map { ($0, .count) }), warmupIterations: warmup,
            scalingFactor: .one, maxDuration: maxDuration, maxIterations: pairs, setup: setup, teardown: teardown)
    }

    /// One pair: the flow's block, then the floor's. Each closure runs its block and returns the block's cost per
    /// operation in nanoseconds (`wallNanoseconds`, `processCPUNanoseconds`, `BatchCost`).
    public func pair(
        _ benchmark: Benchmark, flow: () async throws -> Double, floor: () async throws -> Double
    ) async throws {
        let flowCost = try await flow()
        let floorCost = try await floor()
        try record(benchmark, flow: flowCost, floor: floorCost)
    }

    /// Records one pair whose blocks the caller ran (adjacent in time): their costs per operation in nanoseconds.
    public func record(_ benchmark: Benchmark, flow: Double, floor: Double) throws {
        guard flow > 0, floor > 0 else { throw BenchmarkFailure("a block of \(benchmark.name) cost nothing") }
        let value = ratio == .cost ? flow / floor : floor / flow
        benchmark.measurement(ratioMetric, Int((value * 1_000).rounded()))
        benchmark.measurement(flowMetric, Int(flow.rounded()))
        benchmark.measurement(floorMetric, Int(floor.rounded()))
        benchmark.measurement(pairsMetric, benchmark.currentIteration - benchmark.configuration.warmupIterations + 1)
    }
}

/// Wall time per operation of runs of `body` for `span` (the last run ends the block once `span` has passed), in
/// nanoseconds: for flows whose waiting is part of the figure (proximity's air time). A block of a fixed length
/// rather than a fixed count: both sides of a pair span about the same stretch of the machine's time whatever their
/// speed, on this machine or a faster one.
public func wallNanoseconds(perOperationFor span: Duration, _ body: () async throws -> Void) async rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    var count = 0
    repeat {
        try await body()
        count += 1
    } while clock.now - start < span
    return nanoseconds(clock.now - start) / Double(count)
}

/// Process CPU time (every thread) per operation of runs of `body` for `span` of wall time, in nanoseconds: for a
/// computation, the same figure as its wall time on an idle machine, and one that other processes on a busy machine
/// barely move. Wall time is sliced among them: with two memory-copying processes on this 2-core host, a block's wall
/// time swung the Annex D reader's pair ratios from 0.5 to 1.9 (median 1.25) while its CPU time kept them within
/// 0.92 and 0.99 (median 0.97, as on an idle host).
public func processCPUNanoseconds(perOperationFor span: Duration, _ body: () async throws -> Void) async rethrows -> Double {
    let clock = ContinuousClock()
    let (start, cpu) = (clock.now, processCPUMicroseconds())
    var count = 0
    repeat {
        try await body()
        count += 1
    } while clock.now - start < span
    return Double(processCPUMicroseconds() - cpu) * 1_000 / Double(count)
}

/// Process CPU time (every thread) per operation of `count` runs of `body`, in nanoseconds: for rows that compare
/// CPU per core, which other processes on the machine move far less than wall time.
public func processCPUNanoseconds(perOperationOf count: Int, _ body: () async throws -> Void) async rethrows -> Double {
    let start = processCPUMicroseconds()
    for _ in 0..<count { try await body() }
    return Double(processCPUMicroseconds() - start) * 1_000 / Double(count)
}

/// A duration in nanoseconds.
public func nanoseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
}
