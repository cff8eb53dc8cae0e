package io.jrma.spi;

import io.jrma.core.config.JobLayout;
import io.jrma.core.config.Param;
import io.jrma.core.runtime.Job;
import io.jrma.spi.transport.Transport;
import java.util.List;
import java.util.Map;

/**
 * A transport component, found with {@code ServiceLoader} (a {@code META-INF/services/io.jrma.spi.TransportProvider}
 * entry in its module). For each job spanning JVMs, every JVM asks every provider the parameter
 * {@code jrma.transports} selects for its {@link #query}, opens those that accept in ascending priority (the broad
 * ones first: TCP reaches every JVM and carries the control plane the narrower ones set themselves up with),
 * publishes the {@link Opening#card} of each through the launcher, and connects them in the same order. A peer is
 * reached through the highest-priority transport that reaches it.
 *
 * <p>Implementations are stateless singletons: state lives in the {@link Transport}s they open.
 */
public interface TransportProvider {
    /** The component's name in {@code jrma.transports} and {@code jrma-info} ({@code tcp}, {@code shm}). */
    String name();

    /** The component query: this transport's priority for a job of {@code layout}, or why it declines. */
    TransportQuery query(JobLayout layout);

    /**
     * Phase one on every JVM of a job: takes the local resources (a listening socket, ...) and says what the other
     * JVMs need to reach this one.
     *
     * @param jobId the job's id (names files, is checked in handshakes)
     * @param secret the job's secret (proves membership in handshakes, {@link io.jrma.core.auth.Handshake})
     */
    Opening open(Job job, String jobId, String secret);

    /** The run-time parameters of this component, for {@code jrma-info} and the parameter pages. */
    default List<Param> params() {
        return List.of();
    }

    /**
     * Removes what JVM {@code pid} of a job left behind (it was killed and ran no clean-up): the launcher calls it
     * for every JVM it saw end. Returns the names of what was removed.
     */
    default List<String> reclaim(Map<String, String> params, long pid) {
        return List.of();
    }

    /** Removes what every JVM that no longer runs left behind ({@code jrmarun --cleanup}); returns the names. */
    default List<String> reclaimDead(Map<String, String> params) {
        return List.of();
    }

    /** A transport opened on one JVM, before it is connected to the others. */
    interface Opening {
        /** What the other JVMs need to reach this one through this transport ({@code host:port}); may be empty. */
        String card();

        /**
         * Phase two, once every JVM's card is known ({@code cards[j]} from JVM {@code j}): connects to the peers
         * (collectively with the other JVMs where the transport needs that), registers the transport with the job
         * for the ranks it reaches ({@link Job#addRemote}) and returns it; null when it reaches no rank here.
         */
        Transport connect(String[] cards);

        /** Gives up the resources taken in {@link TransportProvider#open} when the job fails before connecting. */
        default void abandon() {
        }
    }
}
