/**
 * OSU Micro-Benchmarks 7.x tests written against jrma, each with a C twin in {@code bench/c} that
 * {@code bench/compare} runs beside it: the one-sided tests ({@link io.jrma.bench.osu.OsuRma}, on jrma's own API),
 * ping-pong, bandwidth and allreduce ({@link io.jrma.bench.osu.OsuPt2pt}) and the blocking collectives
 * ({@link io.jrma.bench.osu.OsuColl}), the last two on the {@code mpi} package as Open MPI Java programs use it.
 * They keep OSU's loops, options and output format, and run as jrma jobs (threads of one JVM, or JVMs under
 * jrmarun).
 */
package io.jrma.bench.osu;
