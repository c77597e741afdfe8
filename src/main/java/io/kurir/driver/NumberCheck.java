package io.kurir.driver;

/** Whether a number has an account on the network; UNKNOWN when it could not be asked. */
public enum NumberCheck {
  EXISTS,
  NOT_EXISTS,
  UNKNOWN
}
