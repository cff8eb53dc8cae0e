package io.jrma.core.config;

import java.util.Map;

/**
 * What a transport is told of a job before it opens: how many ranks, how many JVMs, and the job's run-time
 * parameters. Hosts are not known yet (every JVM learns its peers' identities when the transports connect).
 *
 * @param ranks the number of ranks
 * @param jvms the number of JVMs the ranks are spread over
 * @param params the job's run-time parameters (what is not set falls back to system properties and the
 *               environment, see {@link Param#get})
 */
public record JobLayout(int ranks, int jvms, Map<String, String> params) {
}
