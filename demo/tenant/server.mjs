// The simulated tenant moved to tenant/ (it ships as svc-embed/tenant). This re-export keeps the
// suites that still import it from here working until they move too.
export { startTenant } from '../../tenant/index.js';
