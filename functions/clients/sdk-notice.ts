// mailvet runs on Node 20 on purpose (the Lambda runtime it deploys to), so the AWS SDK's notice that
// later SDK versions need Node 22 is known here and would only repeat itself on every command.
// AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED is the SDK's own switch; set it to false to see it.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export {};
