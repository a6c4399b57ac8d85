// What an operator needs after `cdk deploy`: the API's base URL and the names `npm run keys` works against.
import { CfnOutput, type Stack } from 'aws-cdk-lib';

export interface MailvetOutputs {
  apiUrl: string;
  consoleUrl: string;
  /** Where widget.js sends its calls (its data-api). */
  widgetApiUrl: string;
  tableName: string;
  bucketName: string;
}

export function addOutputs(stack: Stack, outputs: MailvetOutputs): void {
  new CfnOutput(stack, 'ApiUrl', { value: outputs.apiUrl, description: 'Base URL of the mailvet HTTP API' });
  new CfnOutput(stack, 'ConsoleUrl', { value: outputs.consoleUrl, description: 'The mailvet web console' });
  new CfnOutput(stack, 'WidgetApiUrl', {
    value: outputs.widgetApiUrl,
    description: 'The signup-form widget\'s API: data-api of <script src="<ConsoleUrl>/widget.js">',
  });
  new CfnOutput(stack, 'TableName', { value: outputs.tableName, description: 'The single DynamoDB table' });
  new CfnOutput(stack, 'BucketName', {
    value: outputs.bucketName,
    description: 'Uploads, parts and results',
  });
}
