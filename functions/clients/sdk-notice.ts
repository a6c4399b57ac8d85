// mailvet supports Node 20 on purpose (package.json engines), so the AWS SDK's notice that its releases
// from 2027 need Node 22 is known here and would only repeat itself on every command and test.
// AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED is the SDK's own switch; set it to false to see it.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export {};
