/**
 * OSU Micro-Benchmarks 7.x one-sided tests written against jrma ({@link io.jrma.bench.osu.OsuRma}): the same
 * loops, options and output format, run as jrma jobs (threads of one JVM, or JVMs under jrmarun).
 */
package io.jrma.bench.osu;
