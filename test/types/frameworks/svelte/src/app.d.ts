/// <reference types="svc-embed/svelte" />
