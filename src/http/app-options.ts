/** How `createApp` (app.ts) builds the app: logging, the admin app's folder, and whether to build ahead. */
export interface AppOptions {
  /** Pino options or false; tests pass false. */
  logger?: boolean | object;
  /** Folder of the built admin app; tests point it elsewhere. */
  adminAppDir?: string;
  /**
   * Build now, and again as the schema changes, what requests would otherwise build on first use (default): the
   * request-body validators, and the admin's and the public's GraphQL schemas. Tests pass false: a file uses a few
   * validators, and one that changes the schema dozens of times would rebuild both GraphQL schemas after each change.
   */
  warm?: boolean;
  /** A worker of several (WORKERS > 1): its id (pid), sent on every answer as X-Strata-Worker. */
  worker?: string;
}
