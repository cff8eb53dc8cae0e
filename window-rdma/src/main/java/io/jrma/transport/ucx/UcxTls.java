package io.jrma.transport.ucx;

/** Values of {@code UCX_TLS} ({@code jrma.ucx.tls}) that run on a host without an RDMA device. */
public final class UcxTls {
    /** UCX's shared-memory transports (posix, sysv, cma, ...) and loopback. */
    public static final String SM = "sm,self";
    /** UCX's TCP transport (and loopback within one worker). */
    public static final String TCP = "tcp,self";

    private UcxTls() {
    }
}
