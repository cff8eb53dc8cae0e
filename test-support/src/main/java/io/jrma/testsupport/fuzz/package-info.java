/**
 * The shape the fuzz campaigns share: a seed and a size read from system properties and printed so a failure can be
 * repeated ({@link io.jrma.testsupport.fuzz.FuzzCampaign}), and honest packets whose payload byte {@code k} is
 * {@code seq + k}, written by the fuzzer and checked byte by byte where they are delivered
 * ({@link io.jrma.testsupport.fuzz.PatternPackets}).
 */
package io.jrma.testsupport.fuzz;
