// Loaded into the workflow sandbox once per worker thread, before any workflow runs and before the SDK freezes the
// sandbox's globals (the bundle's `preloadModules`, src/platform/workflow-bundle.ts): errors and promises created by
// workflow code capture no stack frames. The SDK's promise hook captures and formats a stack trace for every promise
// a workflow creates, for the Temporal UI's stack trace query, and has no option to turn it off
// (temporalio/sdk-typescript#1587): about a third of the CPU of running a delivery's workflow code. A worker started
// with WORKFLOW_STACK_TRACES=true runs the bundle built without this module, stack traces and all
// (docs/operations.md "Workflow stack traces").
Error.stackTraceLimit = 0;

export {};
