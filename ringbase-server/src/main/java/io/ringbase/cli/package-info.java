/**
 * The command line (picocli): the only code that reads arguments and the environment; parses them into validated configuration records and starts the node.
 */
package io.ringbase.cli;
