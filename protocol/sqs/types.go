package sqs

import (
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"slices"
	"sort"
	"strings"

	"github.com/minisqs/minisqs/engine"
)

// Inputs and outputs of the SQS actions, shared by both codecs. Field names
// are the API's member names, which the JSON protocol uses as they are; the
// `query` tag gives the query protocol's flattened name (botocore's
// service-2.json locationName):
//
//	query:"Name"                  a scalar parameter
//	query:"Name,list"             Name.1, Name.2, ... (scalars or structs)
//	query:"Name,map,Key,Value"    Name.N.Key and Name.N.Value
//
// Output structs carry `xml` tags for the query protocol's XML result.

// blob is binary data, base64 in both JSON and XML.
type blob []byte

func (b blob) MarshalText() ([]byte, error) {
	out := make([]byte, base64.StdEncoding.EncodedLen(len(b)))
	base64.StdEncoding.Encode(out, b)
	return out, nil
}

func (b *blob) UnmarshalText(text []byte) error {
	out := make([]byte, base64.StdEncoding.DecodedLen(len(text)))
	n, err := base64.StdEncoding.Decode(out, text)
	if err != nil {
		return err
	}
	*b = out[:n]
	return nil
}

// MessageAttributeValue is one typed message attribute.
type MessageAttributeValue struct {
	StringValue string `json:"StringValue,omitempty" xml:"StringValue,omitempty" query:"StringValue"`
	BinaryValue blob   `json:"BinaryValue,omitempty" xml:"BinaryValue,omitempty" query:"BinaryValue"`
	DataType    string `json:"DataType" xml:"DataType" query:"DataType"`
}

// attributeMap is a string map written in XML as repeated
// <Attribute><Name/><Value/></Attribute> elements, sorted by name.
type attributeMap map[string]string

func (m attributeMap) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	return marshalPairs(e, start, m, "Name", "Value")
}

// tagMap is a string map written in XML as repeated <Tag><Key/><Value/></Tag>.
type tagMap map[string]string

func (m tagMap) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	return marshalPairs(e, start, m, "Key", "Value")
}

func marshalPairs(e *xml.Encoder, start xml.StartElement, m map[string]string, key, value string) error {
	for _, k := range sortedKeys(m) {
		if err := e.EncodeToken(start); err != nil {
			return err
		}
		if err := e.EncodeElement(k, xml.StartElement{Name: xml.Name{Local: key}}); err != nil {
			return err
		}
		if err := e.EncodeElement(m[k], xml.StartElement{Name: xml.Name{Local: value}}); err != nil {
			return err
		}
		if err := e.EncodeToken(start.End()); err != nil {
			return err
		}
	}
	return nil
}

// messageAttributeList is a received message's attributes, sorted by name
// and each name once, as a JSON object of MessageAttributeValue by name,
// and in XML as repeated
// <MessageAttribute><Name/><Value>...</Value></MessageAttribute>. A list
// rather than a map: every received message carries one, and a map of even
// one attribute costs an allocation of hundreds of bytes.
type messageAttributeList []engine.MessageAttribute

func (l messageAttributeList) value(i int) MessageAttributeValue {
	return MessageAttributeValue{StringValue: l[i].StringValue, BinaryValue: l[i].BinaryValue, DataType: l[i].DataType}
}

// MarshalJSON writes l as encoding/json writes the map of its values by
// name; the fast encoder (appendMessage) writes the same bytes.
func (l messageAttributeList) MarshalJSON() ([]byte, error) {
	m := make(map[string]MessageAttributeValue, len(l))
	for i := range l {
		m[l[i].Name] = l.value(i)
	}
	return json.Marshal(m)
}

func (l messageAttributeList) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	for i := range l {
		if err := e.EncodeToken(start); err != nil {
			return err
		}
		if err := e.EncodeElement(l[i].Name, xml.StartElement{Name: xml.Name{Local: "Name"}}); err != nil {
			return err
		}
		if err := e.EncodeElement(l.value(i), xml.StartElement{Name: xml.Name{Local: "Value"}}); err != nil {
			return err
		}
		if err := e.EncodeToken(start.End()); err != nil {
			return err
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// CreateQueueInput is the input of the CreateQueue action.
type CreateQueueInput struct {
	QueueName  string            `json:"QueueName" query:"QueueName"`
	Attributes map[string]string `json:"Attributes" query:"Attribute,map,Name,Value"`
	Tags       map[string]string `json:"tags" query:"Tag,map,Key,Value"`
}

// QueueURLOutput is the result of CreateQueue and GetQueueUrl.
type QueueURLOutput struct {
	QueueUrl string `json:"QueueUrl" xml:"QueueUrl"`
}

// GetQueueUrlInput is the input of the GetQueueUrl action.
type GetQueueUrlInput struct {
	QueueName              string `json:"QueueName" query:"QueueName"`
	QueueOwnerAWSAccountId string `json:"QueueOwnerAWSAccountId" query:"QueueOwnerAWSAccountId"`
}

// ListQueuesInput is the input of the ListQueues action.
type ListQueuesInput struct {
	QueueNamePrefix string `json:"QueueNamePrefix" query:"QueueNamePrefix"`
	MaxResults      *int   `json:"MaxResults" query:"MaxResults"`
	NextToken       string `json:"NextToken" query:"NextToken"`
}

// ListQueuesOutput is the result of the ListQueues action.
type ListQueuesOutput struct {
	QueueUrls []string `json:"QueueUrls,omitempty" xml:"QueueUrl"`
	NextToken string   `json:"NextToken,omitempty" xml:"NextToken,omitempty"`
}

// QueueInput is the input of the actions that name only a queue.
type QueueInput struct {
	QueueUrl string `json:"QueueUrl" query:"QueueUrl"`
}

// GetQueueAttributesInput is the input of the GetQueueAttributes action.
type GetQueueAttributesInput struct {
	QueueUrl       string   `json:"QueueUrl" query:"QueueUrl"`
	AttributeNames []string `json:"AttributeNames" query:"AttributeName,list"`
}

// GetQueueAttributesOutput is the result of the GetQueueAttributes action.
type GetQueueAttributesOutput struct {
	Attributes attributeMap `json:"Attributes,omitempty" xml:"Attribute,omitempty"`
}

// SetQueueAttributesInput is the input of the SetQueueAttributes action.
type SetQueueAttributesInput struct {
	QueueUrl   string            `json:"QueueUrl" query:"QueueUrl"`
	Attributes map[string]string `json:"Attributes" query:"Attribute,map,Name,Value"`
}

// SendMessageInput is the input of the SendMessage action.
type SendMessageInput struct {
	QueueUrl                string                           `json:"QueueUrl" query:"QueueUrl"`
	MessageBody             *string                          `json:"MessageBody" query:"MessageBody"`
	DelaySeconds            *int                             `json:"DelaySeconds" query:"DelaySeconds"`
	MessageAttributes       map[string]MessageAttributeValue `json:"MessageAttributes" query:"MessageAttribute,map,Name,Value"`
	MessageSystemAttributes map[string]MessageAttributeValue `json:"MessageSystemAttributes" query:"MessageSystemAttribute,map,Name,Value"`
	MessageDeduplicationId  *string                          `json:"MessageDeduplicationId" query:"MessageDeduplicationId"` // nil when absent: SQS refuses some ids given as ""
	MessageGroupId          *string                          `json:"MessageGroupId" query:"MessageGroupId"`
	sent                    sentAttributes                   // the attributes the action takes, the maps' once settled
}

// SendMessageOutput is the result of the SendMessage action.
type SendMessageOutput struct {
	MD5OfMessageBody             string `json:"MD5OfMessageBody" xml:"MD5OfMessageBody"`
	MD5OfMessageAttributes       string `json:"MD5OfMessageAttributes,omitempty" xml:"MD5OfMessageAttributes,omitempty"`
	MD5OfMessageSystemAttributes string `json:"MD5OfMessageSystemAttributes,omitempty" xml:"MD5OfMessageSystemAttributes,omitempty"`
	MessageId                    string `json:"MessageId" xml:"MessageId"`
	SequenceNumber               string `json:"SequenceNumber,omitempty" xml:"SequenceNumber,omitempty"`
}

// SendMessageBatchEntry is one entry of a batch request or result.
type SendMessageBatchEntry struct {
	Id                      string                           `json:"Id" query:"Id"`
	MessageBody             *string                          `json:"MessageBody" query:"MessageBody"`
	DelaySeconds            *int                             `json:"DelaySeconds" query:"DelaySeconds"`
	MessageAttributes       map[string]MessageAttributeValue `json:"MessageAttributes" query:"MessageAttribute,map,Name,Value"`
	MessageSystemAttributes map[string]MessageAttributeValue `json:"MessageSystemAttributes" query:"MessageSystemAttribute,map,Name,Value"`
	MessageDeduplicationId  *string                          `json:"MessageDeduplicationId" query:"MessageDeduplicationId"` // nil when absent: SQS refuses some ids given as ""
	MessageGroupId          *string                          `json:"MessageGroupId" query:"MessageGroupId"`
	sent                    sentAttributes                   // the attributes the action takes, the maps' once settled
}

// sentAttributes are the attributes and system attributes of a message
// sent, as the actions take them: the fast JSON decoder reads them, and
// settleAttributes moves there what encoding/json or decodeQuery read into
// the maps, which are then nil. Each list is sorted by name and names an
// attribute once; an empty one is nil. Entries may share a list, which
// none changes.
type sentAttributes struct {
	attrs, sys []engine.MessageAttribute
	// plainBody says that the fast JSON decoder read the message's body as
	// printable ASCII without escapes, which the engine then need not
	// check again (engine.NewMessage's BodyChecked).
	plainBody bool
}

// settleAttributes moves the attribute maps of in, an action's input as
// encoding/json or decodeQuery filled it, into its sentAttributes.
func settleAttributes(in any) {
	switch in := in.(type) {
	case *SendMessageInput:
		in.sent.settle(&in.MessageAttributes, &in.MessageSystemAttributes)
	case *SendMessageBatchInput:
		for i := range in.Entries {
			e := &in.Entries[i]
			e.sent.settle(&e.MessageAttributes, &e.MessageSystemAttributes)
		}
	}
}

func (s *sentAttributes) settle(attrs, sys *map[string]MessageAttributeValue) {
	s.attrs, s.sys = attributeList(*attrs), attributeList(*sys)
	*attrs, *sys = nil, nil
}

// attributeList is m as a list sorted by name, nil if m is empty.
func attributeList(m map[string]MessageAttributeValue) []engine.MessageAttribute {
	if len(m) == 0 {
		return nil
	}
	out := make([]engine.MessageAttribute, 0, len(m))
	for name, v := range m {
		out = append(out, engine.MessageAttribute{Name: name, DataType: v.DataType, StringValue: v.StringValue, BinaryValue: v.BinaryValue})
	}
	slices.SortFunc(out, byAttributeName)
	return out
}

func byAttributeName(a, b engine.MessageAttribute) int { return strings.Compare(a.Name, b.Name) }

// SendMessageBatchInput is the input of the SendMessageBatch action.
type SendMessageBatchInput struct {
	QueueUrl string                  `json:"QueueUrl" query:"QueueUrl"`
	Entries  []SendMessageBatchEntry `json:"Entries" query:"SendMessageBatchRequestEntry,list"`
}

// SendMessageBatchResultEntry is one entry of a batch request or result.
type SendMessageBatchResultEntry struct {
	Id string `json:"Id" xml:"Id"`
	SendMessageOutput
}

// BatchResultErrorEntry is one failed entry of a batch action.
type BatchResultErrorEntry struct {
	Id          string `json:"Id" xml:"Id"`
	SenderFault bool   `json:"SenderFault" xml:"SenderFault"`
	Code        string `json:"Code" xml:"Code"`
	Message     string `json:"Message,omitempty" xml:"Message,omitempty"`
}

// SendMessageBatchOutput is the result of the SendMessageBatch action. An
// empty list is left out, as AWS leaves it out: a batch without failures
// answers {"Successful":[...]} (go-cloud's AWS replays,
// pubsub/awssnssqs/testdata, TestDoubleAck).
type SendMessageBatchOutput struct {
	Successful []SendMessageBatchResultEntry `json:"Successful,omitempty" xml:"SendMessageBatchResultEntry"`
	Failed     []BatchResultErrorEntry       `json:"Failed,omitempty" xml:"BatchResultErrorEntry"`
}

// ReceiveMessageInput is the input of the ReceiveMessage action.
type ReceiveMessageInput struct {
	QueueUrl                    string   `json:"QueueUrl" query:"QueueUrl"`
	AttributeNames              []string `json:"AttributeNames" query:"AttributeName,list"`
	MessageSystemAttributeNames []string `json:"MessageSystemAttributeNames" query:"AttributeName,list"` // the query protocol sends both as AttributeName.N
	MessageAttributeNames       []string `json:"MessageAttributeNames" query:"MessageAttributeName,list"`
	MaxNumberOfMessages         *int     `json:"MaxNumberOfMessages" query:"MaxNumberOfMessages"`
	VisibilityTimeout           *int     `json:"VisibilityTimeout" query:"VisibilityTimeout"`
	WaitTimeSeconds             *int     `json:"WaitTimeSeconds" query:"WaitTimeSeconds"`
	ReceiveRequestAttemptId     string   `json:"ReceiveRequestAttemptId" query:"ReceiveRequestAttemptId"`
}

// Message is one received message.
type Message struct {
	MessageId              string               `json:"MessageId" xml:"MessageId"`
	ReceiptHandle          string               `json:"ReceiptHandle" xml:"ReceiptHandle"`
	MD5OfBody              string               `json:"MD5OfBody" xml:"MD5OfBody"`
	Body                   string               `json:"Body" xml:"Body"`
	Attributes             attributeMap         `json:"Attributes,omitempty" xml:"Attribute,omitempty"`
	MD5OfMessageAttributes string               `json:"MD5OfMessageAttributes,omitempty" xml:"MD5OfMessageAttributes,omitempty"`
	MessageAttributes      messageAttributeList `json:"MessageAttributes,omitempty" xml:"MessageAttribute,omitempty"`
}

// ReceiveMessageOutput is the result of the ReceiveMessage action.
type ReceiveMessageOutput struct {
	Messages []Message `json:"Messages,omitempty" xml:"Message"`
}

// DeleteMessageInput is the input of the DeleteMessage action.
type DeleteMessageInput struct {
	QueueUrl      string `json:"QueueUrl" query:"QueueUrl"`
	ReceiptHandle string `json:"ReceiptHandle" query:"ReceiptHandle"`
}

// DeleteMessageBatchEntry is one entry of a batch request or result.
type DeleteMessageBatchEntry struct {
	Id            string `json:"Id" query:"Id"`
	ReceiptHandle string `json:"ReceiptHandle" query:"ReceiptHandle"`
}

// DeleteMessageBatchInput is the input of the DeleteMessageBatch action.
type DeleteMessageBatchInput struct {
	QueueUrl string                    `json:"QueueUrl" query:"QueueUrl"`
	Entries  []DeleteMessageBatchEntry `json:"Entries" query:"DeleteMessageBatchRequestEntry,list"`
}

// BatchResultEntry is one entry of a batch request or result.
type BatchResultEntry struct {
	Id string `json:"Id" xml:"Id"`
}

// DeleteMessageBatchOutput is the result of the DeleteMessageBatch action;
// empty lists are left out, as in SendMessageBatchOutput.
type DeleteMessageBatchOutput struct {
	Successful []BatchResultEntry      `json:"Successful,omitempty" xml:"DeleteMessageBatchResultEntry"`
	Failed     []BatchResultErrorEntry `json:"Failed,omitempty" xml:"BatchResultErrorEntry"`
}

// ChangeMessageVisibilityInput is the input of the ChangeMessageVisibility action.
type ChangeMessageVisibilityInput struct {
	QueueUrl          string `json:"QueueUrl" query:"QueueUrl"`
	ReceiptHandle     string `json:"ReceiptHandle" query:"ReceiptHandle"`
	VisibilityTimeout *int   `json:"VisibilityTimeout" query:"VisibilityTimeout"`
}

// ChangeMessageVisibilityBatchEntry is one entry of a batch request or result.
type ChangeMessageVisibilityBatchEntry struct {
	Id                string `json:"Id" query:"Id"`
	ReceiptHandle     string `json:"ReceiptHandle" query:"ReceiptHandle"`
	VisibilityTimeout *int   `json:"VisibilityTimeout" query:"VisibilityTimeout"`
}

// ChangeMessageVisibilityBatchInput is the input of the ChangeMessageVisibilityBatch action.
type ChangeMessageVisibilityBatchInput struct {
	QueueUrl string                              `json:"QueueUrl" query:"QueueUrl"`
	Entries  []ChangeMessageVisibilityBatchEntry `json:"Entries" query:"ChangeMessageVisibilityBatchRequestEntry,list"`
}

// ChangeMessageVisibilityBatchOutput is the result of the
// ChangeMessageVisibilityBatch action; empty lists are left out, as in
// SendMessageBatchOutput.
type ChangeMessageVisibilityBatchOutput struct {
	Successful []BatchResultEntry      `json:"Successful,omitempty" xml:"ChangeMessageVisibilityBatchResultEntry"`
	Failed     []BatchResultErrorEntry `json:"Failed,omitempty" xml:"BatchResultErrorEntry"`
}

// TagQueueInput is the input of the TagQueue action.
type TagQueueInput struct {
	QueueUrl string            `json:"QueueUrl" query:"QueueUrl"`
	Tags     map[string]string `json:"Tags" query:"Tag,map,Key,Value"`
}

// UntagQueueInput is the input of the UntagQueue action.
type UntagQueueInput struct {
	QueueUrl string   `json:"QueueUrl" query:"QueueUrl"`
	TagKeys  []string `json:"TagKeys" query:"TagKey,list"`
}

// ListQueueTagsOutput is the result of the ListQueueTags action.
type ListQueueTagsOutput struct {
	Tags tagMap `json:"Tags,omitempty" xml:"Tag,omitempty"`
}

// ListDeadLetterSourceQueuesInput is the input of the ListDeadLetterSourceQueues action.
type ListDeadLetterSourceQueuesInput struct {
	QueueUrl   string `json:"QueueUrl" query:"QueueUrl"`
	MaxResults *int   `json:"MaxResults" query:"MaxResults"`
	NextToken  string `json:"NextToken" query:"NextToken"`
}

// ListDeadLetterSourceQueuesOutput is the result of the ListDeadLetterSourceQueues action.
type ListDeadLetterSourceQueuesOutput struct {
	QueueUrls []string `json:"queueUrls" xml:"QueueUrl"`
	NextToken string   `json:"NextToken,omitempty" xml:"NextToken,omitempty"`
}

// AddPermissionInput is the input of the AddPermission action.
type AddPermissionInput struct {
	QueueUrl      string   `json:"QueueUrl" query:"QueueUrl"`
	Label         string   `json:"Label" query:"Label"`
	AWSAccountIds []string `json:"AWSAccountIds" query:"AWSAccountId,list"`
	Actions       []string `json:"Actions" query:"ActionName,list"`
}

// RemovePermissionInput is the input of the RemovePermission action.
type RemovePermissionInput struct {
	QueueUrl string `json:"QueueUrl" query:"QueueUrl"`
	Label    string `json:"Label" query:"Label"`
}

// StartMessageMoveTaskInput is the input of the StartMessageMoveTask action.
type StartMessageMoveTaskInput struct {
	SourceArn                    string `json:"SourceArn" query:"SourceArn"`
	DestinationArn               string `json:"DestinationArn" query:"DestinationArn"`
	MaxNumberOfMessagesPerSecond *int   `json:"MaxNumberOfMessagesPerSecond" query:"MaxNumberOfMessagesPerSecond"`
}

// StartMessageMoveTaskOutput is the result of the StartMessageMoveTask action.
type StartMessageMoveTaskOutput struct {
	TaskHandle string `json:"TaskHandle" xml:"TaskHandle"`
}

// CancelMessageMoveTaskInput is the input of the CancelMessageMoveTask action.
type CancelMessageMoveTaskInput struct {
	TaskHandle string `json:"TaskHandle" query:"TaskHandle"`
}

// CancelMessageMoveTaskOutput is the result of the CancelMessageMoveTask action.
type CancelMessageMoveTaskOutput struct {
	ApproximateNumberOfMessagesMoved int64 `json:"ApproximateNumberOfMessagesMoved" xml:"ApproximateNumberOfMessagesMoved"`
}

// ListMessageMoveTasksInput is the input of the ListMessageMoveTasks action.
type ListMessageMoveTasksInput struct {
	SourceArn  string `json:"SourceArn" query:"SourceArn"`
	MaxResults *int   `json:"MaxResults" query:"MaxResults"`
}

// ListMessageMoveTasksResultEntry is one entry of a batch request or result.
type ListMessageMoveTasksResultEntry struct {
	TaskHandle                        string `json:"TaskHandle,omitempty" xml:"TaskHandle,omitempty"`
	Status                            string `json:"Status" xml:"Status"`
	SourceArn                         string `json:"SourceArn" xml:"SourceArn"`
	DestinationArn                    string `json:"DestinationArn,omitempty" xml:"DestinationArn,omitempty"`
	MaxNumberOfMessagesPerSecond      *int   `json:"MaxNumberOfMessagesPerSecond,omitempty" xml:"MaxNumberOfMessagesPerSecond,omitempty"`
	ApproximateNumberOfMessagesMoved  int64  `json:"ApproximateNumberOfMessagesMoved" xml:"ApproximateNumberOfMessagesMoved"`
	ApproximateNumberOfMessagesToMove int64  `json:"ApproximateNumberOfMessagesToMove" xml:"ApproximateNumberOfMessagesToMove"`
	FailureReason                     string `json:"FailureReason,omitempty" xml:"FailureReason,omitempty"`
	StartedTimestamp                  int64  `json:"StartedTimestamp" xml:"StartedTimestamp"`
}

// ListMessageMoveTasksOutput is the result of the ListMessageMoveTasks action.
type ListMessageMoveTasksOutput struct {
	Results []ListMessageMoveTasksResultEntry `json:"Results,omitempty" xml:"ListMessageMoveTasksResultEntry"`
}
