export { defaultPlugins } from './defaults.ts';
export { default as defaultModel, defaultModelRef } from './models/default-model.ts';
export { default as offline, OFFLINE_HELP, OfflineModel } from './models/offline.ts';
