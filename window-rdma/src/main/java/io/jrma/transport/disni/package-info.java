/**
 * The {@code disni} transport component: verbs RDMA through IBM's DiSNI (RC queue pairs over RDMA-CM, window memory
 * registered with remote read, write and atomic access, RDMA write/read, fetch-add and compare-swap on the targets'
 * memory, completions polled by the progress agent), for hosts with an RDMA device and a {@code libdisni} the user
 * built (docs/disni.md). DiSNI 2.1's own work-request serializer writes atomics with the RDMA layout (rkey where the
 * HCA reads compare_add, swap and the atomic rkey never written): {@code SendWorkRequest}
 * writes every request at the offsets of {@code struct ibv_send_wr} itself and DiSNI only posts it. It has never run
 * on a device (this machine has no RDMA subsystem): the parts that need none (keys, registration bookkeeping, work
 * requests, completion mapping, pending work, the provider's decline) are unit-tested; the rest is complete but
 * unexercised.
 */
package io.jrma.transport.disni;
