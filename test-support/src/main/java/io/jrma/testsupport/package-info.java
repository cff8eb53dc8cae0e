/**
 * What the modules' tests share, used at test scope: {@link io.jrma.testsupport.JobMatrix} runs a job of N ranks on
 * each path a suite covers, {@link io.jrma.testsupport.ChildProcess} runs jrmarun or a plain JVM as a user starts it
 * and kills it with everything it started, {@link io.jrma.testsupport.ShmLeftovers} finds the shared-memory files a
 * JVM left behind, and {@link io.jrma.testsupport.SourceLines} holds the source style rules a test enforces. This
 * module depends on rma-core alone, so every module above it may use it without a cycle in the reactor; a helper
 * that needs a higher module's types stays in that module's tests.
 */
package io.jrma.testsupport;
