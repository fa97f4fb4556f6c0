package io.conduit.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class EchoExampleTest {
    @Test
    void theExampleEchoesItsInput() throws Exception {
        assertEquals("hello, conduit", EchoExample.echo("hello, conduit"));
    }
}
