/**
 * Run-time parameters (internal): {@link io.jrma.core.config.Param} and the core's table of them,
 * {@link io.jrma.core.config.Params}, and the layout a job is described by before it starts
 * ({@link io.jrma.core.config.JobLayout}). Below the public API, which reads and prints them ({@code JrmaInfo}).
 */
package io.jrma.core.config;
