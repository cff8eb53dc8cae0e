/**
 * The engine behind the public API's static entry points (internal): {@link io.jrma.core.engine.JrmaEngine}
 * implements {@code io.jrma.Jrma.Engine} over the runtime and the components, and is found by the API with
 * {@code ServiceLoader}, so that the API package does not link the engine built on it.
 */
package io.jrma.core.engine;
