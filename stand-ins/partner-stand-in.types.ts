/**
 * A partner's stand-in as local runs start it (scripts/local-shop.ts, the catalogue generator): one
 * per partner module beside eSIM Access (src/server/partner/partner-modules.ts), listed in
 * partner-stand-ins.ts. Never part of a production build.
 */
export interface PartnerStandInModule {
  /** The partner module's id: its callbacks go to POST <api>/webhooks/<id>. */
  readonly id: string;
  /** Its name in what local runs print ('eSIM Go'). */
  readonly name: string;
  /** The port local-shop.ts starts it on unless told (`--<id>-port`). */
  readonly defaultPort: number;
  /** Starts it (port 0: any), its callbacks sent to `apiUrl` if given. */
  start(options: { port: number; apiUrl?: string }): Promise<StartedPartnerStandIn>;
}

export interface StartedPartnerStandIn {
  readonly url: string;
  /** The environment that points the shop at it (the partner module's `fromEnv` reads it): never a production value. */
  readonly env: Record<string, string>;
  close(): Promise<void>;
}
