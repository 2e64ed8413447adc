// What an authenticated request may see and create: its tenant's objects of its key's mode. A live key
// (`sk_live_`, `pk_live_`) works on live objects only, a test key (`sk_test_`, `pk_test_`) on test objects only
// (livemode false); an object of the other mode is as absent as another tenant's (docs/test-mode.md). Every
// repository read of the API takes a Scope, never a bare tenant id.
export interface Scope {
  tenantId: string;
  livemode: boolean;
}
