package io.conduit.archfixture.internal;

/** Fixture of {@code PackageGraphTest}: a type of an internal package. */
public class Secret extends Exception {
    private static final long serialVersionUID = 1L;
}
