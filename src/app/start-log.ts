/** Where start-up (and the bus and schema changes after it) write what they have to say. */
export interface StartLog {
  info(msg: string): void;
  warn(msg: string): void;
  error?(object: unknown, msg: string): void;
}
