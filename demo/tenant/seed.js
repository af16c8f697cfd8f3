// The simulated tenant moved to tenant/ (it ships as svc-embed/tenant). This re-export keeps the
// suites that still import its seed data from here working until they move too.
export * from '../../tenant/seed.js';
