/** The mpi program {@code bin/jrmarun} trains its class-data sharing archive or ahead-of-time cache with. */
package io.jrma.training;
