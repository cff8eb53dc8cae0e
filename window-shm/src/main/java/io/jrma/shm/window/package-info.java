/**
 * What a window needs of shared memory to reach the ranks of other JVMs of its host: the plan of where its ranks
 * live and whether its memory goes into shared segments ({@link io.jrma.shm.window.ShmPlan}), the directory in which
 * a rank publishes the regions of its window memory ({@link io.jrma.shm.window.RegionDirectory}) and an origin's
 * cached view of it ({@link io.jrma.shm.window.RemoteRegions}), and the request slots through which a target applies
 * single small operations on its private memory ({@link io.jrma.shm.window.OpSlots}). Nothing here knows epochs,
 * datatypes or groups; the window (module sync-epochs) decides which of them each peer takes.
 */
package io.jrma.shm.window;
