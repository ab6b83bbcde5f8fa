// Stand-in of the iOS 18 SDK surface that Apps/iOS uses, for a Swift 6 type-check on Linux
// (scripts/check-apple typecheck): declarations only, their signatures, Sendable and actor
// annotations as Apple documents them. Not a mock: nothing here runs. Limits: docs/ARCHITECTURE.md.
// SwiftUI: the views, modifiers and data flow the app's screens use. What shapes a type-check is
// kept as the SDK has it: `View`, `App` and `Scene` are main-actor protocols; modifiers are
// nonisolated; `task` and `Binding(get:set:)` take `@Sendable` closures that inherit the caller's
// actor; `refreshable` takes a `@Sendable` one. Layout and rendering are not modelled: a modifier
// returns its view unchanged.
@_exported import Combine
@_exported import Foundation
import UIKit

// MARK: - Views and their builder

@preconcurrency @MainActor
public protocol View {
    associatedtype Body: View
    @ViewBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

extension Never: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
}

extension Optional: View where Wrapped: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
}

/// What a view with no body of its own declares (the SDK's primitive views).
public protocol _PrimitiveView: View where Body == Never {}
extension _PrimitiveView {
    public var body: Never { fatalError() }
}

public struct EmptyView: _PrimitiveView {
    nonisolated public init() {}
}

public struct TupleView<T>: _PrimitiveView {
    nonisolated public init(_ value: T) {}
}

public struct _ConditionalContent<TrueContent: View, FalseContent: View>: _PrimitiveView {}

public struct AnyView: _PrimitiveView {
    nonisolated public init<V: View>(_ view: V) {}
}

@resultBuilder
public struct ViewBuilder {
    public static func buildExpression<Content: View>(_ content: Content) -> Content { content }
    public static func buildBlock() -> EmptyView { EmptyView() }
    public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
    // The fixed-arity builders (iOS 13.0+) that the compiler picks below iOS 17, as the SDK has them.
    public static func buildBlock<C0: View, C1: View>(_ c0: C0, _ c1: C1) -> TupleView<(C0, C1)> {
        TupleView((c0, c1))
    }
    public static func buildBlock<C0: View, C1: View, C2: View>(
        _ c0: C0, _ c1: C1, _ c2: C2
    ) -> TupleView<(C0, C1, C2)> { TupleView((c0, c1, c2)) }
    public static func buildBlock<C0: View, C1: View, C2: View, C3: View>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3
    ) -> TupleView<(C0, C1, C2, C3)> { TupleView((c0, c1, c2, c3)) }
    public static func buildBlock<C0: View, C1: View, C2: View, C3: View, C4: View>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4
    ) -> TupleView<(C0, C1, C2, C3, C4)> { TupleView((c0, c1, c2, c3, c4)) }
    public static func buildBlock<C0: View, C1: View, C2: View, C3: View, C4: View, C5: View>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5
    ) -> TupleView<(C0, C1, C2, C3, C4, C5)> { TupleView((c0, c1, c2, c3, c4, c5)) }
    public static func buildBlock<C0: View, C1: View, C2: View, C3: View, C4: View, C5: View, C6: View>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5, _ c6: C6
    ) -> TupleView<(C0, C1, C2, C3, C4, C5, C6)> { TupleView((c0, c1, c2, c3, c4, c5, c6)) }
    public static func buildBlock<C0: View, C1: View, C2: View, C3: View, C4: View, C5: View, C6: View, C7: View>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5, _ c6: C6, _ c7: C7
    ) -> TupleView<(C0, C1, C2, C3, C4, C5, C6, C7)> { TupleView((c0, c1, c2, c3, c4, c5, c6, c7)) }
    public static func buildBlock<
        C0: View, C1: View, C2: View, C3: View, C4: View, C5: View, C6: View, C7: View, C8: View
    >(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5, _ c6: C6, _ c7: C7, _ c8: C8
    ) -> TupleView<(C0, C1, C2, C3, C4, C5, C6, C7, C8)> { TupleView((c0, c1, c2, c3, c4, c5, c6, c7, c8)) }
    public static func buildBlock<
        C0: View, C1: View, C2: View, C3: View, C4: View, C5: View, C6: View, C7: View, C8: View, C9: View
    >(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5, _ c6: C6, _ c7: C7, _ c8: C8, _ c9: C9
    ) -> TupleView<(C0, C1, C2, C3, C4, C5, C6, C7, C8, C9)> {
        TupleView((c0, c1, c2, c3, c4, c5, c6, c7, c8, c9))
    }
    // iOS 18 SDK: the parameter-pack builder is iOS 17.0+ (today's page, for the iOS 27 SDK, says 13.0:
    // it is back-deployed there); below iOS 17 the fixed-arity builders above are used.
    @available(iOS 17.0, *)
    public static func buildBlock<each Content: View>(
        _ content: repeat each Content
    ) -> TupleView<(repeat each Content)> {
        TupleView((repeat each content))
    }
    public static func buildIf<Content: View>(_ content: Content?) -> Content? { content }
    public static func buildEither<TrueContent: View, FalseContent: View>(
        first: TrueContent
    ) -> _ConditionalContent<TrueContent, FalseContent> { _ConditionalContent() }
    public static func buildEither<TrueContent: View, FalseContent: View>(
        second: FalseContent
    ) -> _ConditionalContent<TrueContent, FalseContent> { _ConditionalContent() }
    @available(iOS 14.0, *)
    public static func buildLimitedAvailability<Content: View>(_ content: Content) -> AnyView { AnyView(content) }
}

// MARK: - App and scenes

@available(iOS 14.0, *)
@preconcurrency @MainActor
public protocol App {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
    @MainActor @preconcurrency init()
}

@available(iOS 14.0, *)
extension App {
    @MainActor @preconcurrency public static func main() {}
}

@available(iOS 14.0, *)
@preconcurrency @MainActor
public protocol Scene {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

@available(iOS 14.0, *)
extension Never: Scene {}

@available(iOS 14.0, *)
@resultBuilder
public struct SceneBuilder {
    public static func buildExpression<Content: Scene>(_ content: Content) -> Content { content }
    public static func buildBlock<Content: Scene>(_ content: Content) -> Content { content }
}

@available(iOS 14.0, *)
public struct WindowGroup<Content: View>: Scene {
    nonisolated public init(@ViewBuilder content: () -> Content) {}
    public var body: Never { fatalError() }
}

// MARK: - Data flow

public protocol DynamicProperty {}

@propertyWrapper @frozen
public struct State<Value>: DynamicProperty {
    public init(wrappedValue value: Value) { stored = value }
    public init(initialValue value: Value) { stored = value }
    private let stored: Value
    public var wrappedValue: Value {
        get { stored }
        nonmutating set {}
    }
    public var projectedValue: Binding<Value> { Binding(get: { fatalError() }, set: { _ in }) }
}

extension State where Value: ExpressibleByNilLiteral {
    public init() { stored = nil }
}

@frozen @propertyWrapper @dynamicMemberLookup
public struct Binding<Value> {
    // Apple's page shows `@preconcurrency init(get: @escaping @isolated(any) @Sendable () -> Value, ...)`;
    // the SDK's interface also marks both closures `@_inheritActorContext` (not shown in docs).
    @preconcurrency
    public init(
        @_inheritActorContext get: @escaping @isolated(any) @Sendable () -> Value,
        @_inheritActorContext set: @escaping @isolated(any) @Sendable (Value) -> Void
    ) {}
    public init(projectedValue: Binding<Value>) {}
    public static func constant(_ value: Value) -> Binding<Value> { fatalError() }
    public var wrappedValue: Value {
        get { fatalError() }
        nonmutating set {}
    }
    public var projectedValue: Binding<Value> { self }
    public subscript<Subject>(dynamicMember keyPath: WritableKeyPath<Value, Subject>) -> Binding<Subject> {
        fatalError()
    }
}

extension Binding: @unchecked Sendable where Value: Sendable {}

@available(iOS 14.0, *)
@MainActor @preconcurrency @propertyWrapper @frozen
public struct StateObject<ObjectType: ObservableObject>: DynamicProperty {
    nonisolated public init(wrappedValue thunk: @autoclosure @escaping () -> ObjectType) {}
    @MainActor public var wrappedValue: ObjectType { fatalError() }
    @MainActor public var projectedValue: ObservedObject<ObjectType>.Wrapper { fatalError() }
}

@MainActor @preconcurrency @propertyWrapper @frozen
public struct ObservedObject<ObjectType: ObservableObject>: DynamicProperty {
    @MainActor @preconcurrency @dynamicMemberLookup @frozen
    public struct Wrapper {
        public subscript<Subject>(
            dynamicMember keyPath: ReferenceWritableKeyPath<ObjectType, Subject>
        ) -> Binding<Subject> { fatalError() }
    }
    nonisolated public init(wrappedValue: ObjectType) {}
    @MainActor public var wrappedValue: ObjectType { fatalError() }
    @MainActor public var projectedValue: Wrapper { fatalError() }
}

@MainActor @preconcurrency @propertyWrapper @frozen
public struct EnvironmentObject<ObjectType: ObservableObject>: DynamicProperty {
    @MainActor @preconcurrency @dynamicMemberLookup @frozen
    public struct Wrapper {
        public subscript<Subject>(
            dynamicMember keyPath: ReferenceWritableKeyPath<ObjectType, Subject>
        ) -> Binding<Subject> { fatalError() }
    }
    nonisolated public init() {}
    @MainActor public var wrappedValue: ObjectType { fatalError() }
    @MainActor public var projectedValue: Wrapper { fatalError() }
}

@available(iOS 14.0, *)
@MainActor @preconcurrency @propertyWrapper
public struct UIApplicationDelegateAdaptor<DelegateType: NSObject & UIApplicationDelegate>: DynamicProperty {
    public init(_ delegateType: DelegateType.Type = DelegateType.self) {}
    public var wrappedValue: DelegateType { fatalError() }
}

// MARK: - Text, images, styles

public struct LocalizedStringKey: Equatable, Sendable, ExpressibleByStringInterpolation {
    public struct StringInterpolation: StringInterpolationProtocol {
        public init(literalCapacity: Int, interpolationCount: Int) {}
        public mutating func appendLiteral(_ literal: String) {}
        public mutating func appendInterpolation(_ string: String) {}
        public mutating func appendInterpolation<T: _FormatSpecifiable>(_ value: T) {}
        @available(iOS 14.0, *)
        public mutating func appendInterpolation(_ text: Text) {}
        public mutating func appendInterpolation<Subject: ReferenceConvertible>(
            _ subject: Subject, formatter: Formatter? = nil) {}
    }
    public init(_ value: String) {}
    public init(stringLiteral value: String) {}
    public init(stringInterpolation: StringInterpolation) {}
}

/// The number types a localized string formats with a format specifier.
public protocol _FormatSpecifiable: Equatable {}
extension Int: _FormatSpecifiable {}
extension Int32: _FormatSpecifiable {}
extension Int64: _FormatSpecifiable {}
extension UInt: _FormatSpecifiable {}
extension UInt16: _FormatSpecifiable {}
extension Double: _FormatSpecifiable {}
extension Float: _FormatSpecifiable {}

@frozen
public struct Font: Hashable, Sendable {
    public static let largeTitle = Font(), title = Font()
    @available(iOS 14.0, *)
    public static let title2 = Font()
    @available(iOS 14.0, *)
    public static let title3 = Font()
    public static let headline = Font(), subheadline = Font(), body = Font(), callout = Font()
    public static let footnote = Font(), caption = Font()
    @available(iOS 14.0, *)
    public static let caption2 = Font()
    public func bold() -> Font { self }
    public func italic() -> Font { self }
    @available(iOS 15.0, *)
    public func monospaced() -> Font { self }
    public func monospacedDigit() -> Font { self }
}

@frozen
public struct Text: _PrimitiveView, Equatable, Sendable {
    nonisolated public init(
        _ key: LocalizedStringKey, tableName: String? = nil, bundle: Bundle? = nil, comment: StaticString? = nil) {}
    @_disfavoredOverload nonisolated public init<S: StringProtocol>(_ content: S) {}
    nonisolated public init(verbatim content: String) {}
    nonisolated public func bold() -> Text { self }
    nonisolated public func italic() -> Text { self }
    nonisolated public func font(_ font: Font?) -> Text { self }
    @available(iOS 15.0, *)
    nonisolated public func monospacedDigit() -> Text { self }
    // Apple's page now lists it as deprecated in iOS 27.0.
    @available(iOS, introduced: 13.0, deprecated: 27.0)
    nonisolated public func foregroundColor(_ color: Color?) -> Text { self }
}

public struct Image: _PrimitiveView, Hashable, Sendable {
    nonisolated public init(systemName: String) {}
    nonisolated public init(_ name: String, bundle: Bundle? = nil) {}
}

public protocol ShapeStyle: Sendable {}

public struct Color: ShapeStyle, Hashable {
    public static let red = Color(), orange = Color(), yellow = Color(), green = Color(), blue = Color()
    public static let gray = Color(), primary = Color(), secondary = Color(), accentColor = Color()
}

extension Color: _PrimitiveView {}

@available(iOS 15.0, *)
extension ShapeStyle where Self == Color {
    public static var red: Color { .red }
    public static var orange: Color { .orange }
    public static var yellow: Color { .yellow }
    public static var green: Color { .green }
    public static var blue: Color { .blue }
    public static var gray: Color { .gray }
}

@available(iOS 15.0, *)
public struct HierarchicalShapeStyle: ShapeStyle {
    public static let primary = HierarchicalShapeStyle(), secondary = HierarchicalShapeStyle()
    public static let tertiary = HierarchicalShapeStyle()
}

@available(iOS 15.0, *)
extension ShapeStyle where Self == HierarchicalShapeStyle {
    public static var primary: HierarchicalShapeStyle { .primary }
    public static var secondary: HierarchicalShapeStyle { .secondary }
    public static var tertiary: HierarchicalShapeStyle { .tertiary }
}

// MARK: - Layout and containers

public struct HorizontalAlignment: Equatable, Sendable {
    public static let leading = HorizontalAlignment(), center = HorizontalAlignment()
    public static let trailing = HorizontalAlignment()
}

public struct VerticalAlignment: Equatable, Sendable {
    public static let top = VerticalAlignment(), center = VerticalAlignment(), bottom = VerticalAlignment()
    public static let firstTextBaseline = VerticalAlignment()
}

public struct Alignment: Equatable, Sendable {
    public static let center = Alignment(), leading = Alignment(), trailing = Alignment()
    public static let top = Alignment(), bottom = Alignment()
}

public enum Axis: Int8, Hashable, Sendable {
    case horizontal, vertical
}

public struct VStack<Content: View>: _PrimitiveView {
    nonisolated public init(
        alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content) {}
}

public struct HStack<Content: View>: _PrimitiveView {
    nonisolated public init(
        alignment: VerticalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content) {}
}

public struct Spacer: _PrimitiveView {
    nonisolated public init(minLength: CGFloat? = nil) {}
}

public struct List<SelectionValue: Hashable, Content: View>: _PrimitiveView {}

extension List where SelectionValue == Never {
    nonisolated public init(@ViewBuilder content: () -> Content) {}
    nonisolated public init<Data: RandomAccessCollection, RowContent: View>(
        _ data: Data, @ViewBuilder rowContent: @escaping (Data.Element) -> RowContent
    ) where Content == ForEach<Data, Data.Element.ID, RowContent>, Data.Element: Identifiable {}
}

public struct ForEach<Data: RandomAccessCollection, ID: Hashable, Content>: _PrimitiveView {}

extension ForEach where Content: View {
    nonisolated public init(
        _ data: Data, @ViewBuilder content: @escaping (Data.Element) -> Content
    ) where ID == Data.Element.ID, Data.Element: Identifiable {}
    nonisolated public init(
        _ data: Data, id: KeyPath<Data.Element, ID>, @ViewBuilder content: @escaping (Data.Element) -> Content) {}
}

public struct Form<Content: View>: _PrimitiveView {
    nonisolated public init(@ViewBuilder content: () -> Content) {}
}

public struct Section<Parent, Content, Footer>: _PrimitiveView {}

extension Section where Parent: View, Content: View, Footer: View {
    nonisolated public init(
        @ViewBuilder content: () -> Content, @ViewBuilder header: () -> Parent, @ViewBuilder footer: () -> Footer) {}
}

extension Section where Parent: View, Content: View, Footer == EmptyView {
    nonisolated public init(@ViewBuilder content: () -> Content, @ViewBuilder header: () -> Parent) {}
}

extension Section where Parent == EmptyView, Content: View, Footer == EmptyView {
    nonisolated public init(@ViewBuilder content: () -> Content) {}
}

@available(iOS 15.0, *)
extension Section where Parent == Text, Content: View, Footer == EmptyView {
    nonisolated public init(_ titleKey: LocalizedStringKey, @ViewBuilder content: () -> Content) {}
    @_disfavoredOverload
    nonisolated public init<S: StringProtocol>(_ title: S, @ViewBuilder content: () -> Content) {}
}

@available(iOS 16.0, *)
public struct NavigationPath: Equatable {}

@available(iOS 16.0, *)
public struct NavigationStack<Data, Root: View>: _PrimitiveView {}

@available(iOS 16.0, *)
extension NavigationStack where Data == NavigationPath {
    nonisolated public init(@ViewBuilder root: () -> Root) {}
}

public struct TabView<SelectionValue: Hashable, Content: View>: _PrimitiveView {
    nonisolated public init(selection: Binding<SelectionValue>?, @ViewBuilder content: () -> Content) {}
}

// MARK: - Controls

public struct Button<Label: View>: _PrimitiveView {
    @preconcurrency
    nonisolated public init(action: @escaping @MainActor () -> Void, @ViewBuilder label: () -> Label) {}
}

extension Button where Label == Text {
    @preconcurrency
    nonisolated public init(_ titleKey: LocalizedStringKey, action: @escaping @MainActor () -> Void) {}
    @_disfavoredOverload @preconcurrency
    nonisolated public init<S: StringProtocol>(_ title: S, action: @escaping @MainActor () -> Void) {}
}

@available(iOS 14.0, *)
public struct Label<Title: View, Icon: View>: _PrimitiveView {}

@available(iOS 14.0, *)
extension Label where Title == Text, Icon == Image {
    nonisolated public init(_ titleKey: LocalizedStringKey, systemImage name: String) {}
    @_disfavoredOverload
    nonisolated public init<S: StringProtocol>(_ title: S, systemImage name: String) {}
}

@available(iOS 16.0, *)
public struct LabeledContent<Label, Content>: _PrimitiveView {}

@available(iOS 16.0, *)
extension LabeledContent where Label == Text, Content == Text {
    nonisolated public init<S: StringProtocol>(_ titleKey: LocalizedStringKey, value: S) {}
    @_disfavoredOverload
    nonisolated public init<S1: StringProtocol, S2: StringProtocol>(_ title: S1, value: S2) {}
}

public struct Picker<Label: View, SelectionValue: Hashable, Content: View>: _PrimitiveView {}

extension Picker where Label == Text {
    nonisolated public init(
        _ titleKey: LocalizedStringKey, selection: Binding<SelectionValue>, @ViewBuilder content: () -> Content) {}
    @_disfavoredOverload
    nonisolated public init<S: StringProtocol>(
        _ title: S, selection: Binding<SelectionValue>, @ViewBuilder content: () -> Content) {}
}

public struct DatePickerComponents: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let hourAndMinute = DatePickerComponents(rawValue: 1 << 0)
    public static let date = DatePickerComponents(rawValue: 1 << 1)
}

public struct DatePicker<Label: View>: _PrimitiveView {}

extension DatePicker where Label == Text {
    nonisolated public init(
        _ titleKey: LocalizedStringKey, selection: Binding<Date>,
        displayedComponents: DatePickerComponents = [.hourAndMinute, .date]) {}
    @_disfavoredOverload
    nonisolated public init<S: StringProtocol>(
        _ title: S, selection: Binding<Date>, displayedComponents: DatePickerComponents = [.hourAndMinute, .date]) {}
}

public struct TextField<Label: View>: _PrimitiveView {}

extension TextField where Label == Text {
    nonisolated public init(_ titleKey: LocalizedStringKey, text: Binding<String>) {}
    @_disfavoredOverload
    nonisolated public init<S: StringProtocol>(_ title: S, text: Binding<String>) {}
    @available(iOS 16.0, *)
    nonisolated public init(_ titleKey: LocalizedStringKey, text: Binding<String>, axis: Axis) {}
    @available(iOS 16.0, *)
    @_disfavoredOverload
    nonisolated public init<S: StringProtocol>(_ title: S, text: Binding<String>, axis: Axis) {}
}

public struct Toggle<Label: View>: _PrimitiveView {}

extension Toggle where Label == Text {
    nonisolated public init(_ titleKey: LocalizedStringKey, isOn: Binding<Bool>) {}
    @_disfavoredOverload
    nonisolated public init<S: StringProtocol>(_ title: S, isOn: Binding<Bool>) {}
}

/// CoreTransferable's protocol (imported with SwiftUI): what ShareLink shares.
@available(iOS 16.0, *)
public protocol Transferable {}
@available(iOS 16.0, *)
extension URL: Transferable {}
@available(iOS 16.0, *)
extension String: Transferable {}
@available(iOS 16.0, *)
extension Never: Transferable {}

@available(iOS 16.0, *)
public struct ShareLink<Data, PreviewImage, PreviewIcon, Label>: _PrimitiveView
where Data: RandomAccessCollection, PreviewImage: Transferable, PreviewIcon: Transferable, Label: View,
      Data.Element: Transferable {}

/// The system-standard label of a `ShareLink` made with a title.
@available(iOS 16.0, *)
public struct DefaultShareLinkLabel: _PrimitiveView {}

// The SDK has the titled initializers without a preview for URL and String items; the app shares URLs.
@available(iOS 16.0, *)
extension ShareLink
where PreviewImage == Never, PreviewIcon == Never, Label == DefaultShareLinkLabel, Data.Element == URL {
    nonisolated public init(_ titleKey: LocalizedStringKey, items: Data, subject: Text? = nil, message: Text? = nil) {}
    @_disfavoredOverload
    nonisolated public init<S: StringProtocol>(_ title: S, items: Data, subject: Text? = nil, message: Text? = nil) {}
}

// MARK: - Toolbars

@available(iOS 14.0, *)
public struct ToolbarItemPlacement: Sendable {
    public static let automatic = ToolbarItemPlacement(), principal = ToolbarItemPlacement()
    public static let confirmationAction = ToolbarItemPlacement()
    public static let cancellationAction = ToolbarItemPlacement()
    public static let destructiveAction = ToolbarItemPlacement()
    public static let primaryAction = ToolbarItemPlacement()
}

@available(iOS 14.0, *)
@preconcurrency @MainActor
public protocol ToolbarContent {}

@available(iOS 14.0, *)
public struct ToolbarItem<ID, Content: View>: ToolbarContent {}

@available(iOS 14.0, *)
extension ToolbarItem where ID == () {
    nonisolated public init(placement: ToolbarItemPlacement = .automatic, @ViewBuilder content: () -> Content) {}
}

/// What the SDK's multi-item toolbar builders return (`some ToolbarContent` there).
@available(iOS 14.0, *)
public struct _ToolbarTuple<T>: ToolbarContent {
    nonisolated public init(_ value: T) {}
}

/// The SDK has fixed-arity builders (up to ten items), no parameter-pack one.
@available(iOS 14.0, *)
@resultBuilder
public struct ToolbarContentBuilder {
    public static func buildExpression<Content: ToolbarContent>(_ content: Content) -> Content { content }
    public static func buildBlock<Content: ToolbarContent>(_ content: Content) -> Content { content }
    public static func buildBlock<C0, C1>(
        _ c0: C0, _ c1: C1
    ) -> _ToolbarTuple<(C0, C1)>
    where C0: ToolbarContent, C1: ToolbarContent {
        _ToolbarTuple((c0, c1))
    }
    public static func buildBlock<C0, C1, C2>(
        _ c0: C0, _ c1: C1, _ c2: C2
    ) -> _ToolbarTuple<(C0, C1, C2)>
    where C0: ToolbarContent, C1: ToolbarContent, C2: ToolbarContent {
        _ToolbarTuple((c0, c1, c2))
    }
    public static func buildBlock<C0, C1, C2, C3>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3
    ) -> _ToolbarTuple<(C0, C1, C2, C3)>
    where C0: ToolbarContent, C1: ToolbarContent, C2: ToolbarContent, C3: ToolbarContent {
        _ToolbarTuple((c0, c1, c2, c3))
    }
    public static func buildBlock<C0, C1, C2, C3, C4>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4
    ) -> _ToolbarTuple<(C0, C1, C2, C3, C4)>
    where C0: ToolbarContent, C1: ToolbarContent, C2: ToolbarContent, C3: ToolbarContent,
          C4: ToolbarContent {
        _ToolbarTuple((c0, c1, c2, c3, c4))
    }
    public static func buildBlock<C0, C1, C2, C3, C4, C5>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5
    ) -> _ToolbarTuple<(C0, C1, C2, C3, C4, C5)>
    where C0: ToolbarContent, C1: ToolbarContent, C2: ToolbarContent, C3: ToolbarContent,
          C4: ToolbarContent, C5: ToolbarContent {
        _ToolbarTuple((c0, c1, c2, c3, c4, c5))
    }
    public static func buildBlock<C0, C1, C2, C3, C4, C5, C6>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5, _ c6: C6
    ) -> _ToolbarTuple<(C0, C1, C2, C3, C4, C5, C6)>
    where C0: ToolbarContent, C1: ToolbarContent, C2: ToolbarContent, C3: ToolbarContent,
          C4: ToolbarContent, C5: ToolbarContent, C6: ToolbarContent {
        _ToolbarTuple((c0, c1, c2, c3, c4, c5, c6))
    }
    public static func buildBlock<C0, C1, C2, C3, C4, C5, C6, C7>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5, _ c6: C6, _ c7: C7
    ) -> _ToolbarTuple<(C0, C1, C2, C3, C4, C5, C6, C7)>
    where C0: ToolbarContent, C1: ToolbarContent, C2: ToolbarContent, C3: ToolbarContent,
          C4: ToolbarContent, C5: ToolbarContent, C6: ToolbarContent, C7: ToolbarContent {
        _ToolbarTuple((c0, c1, c2, c3, c4, c5, c6, c7))
    }
    public static func buildBlock<C0, C1, C2, C3, C4, C5, C6, C7, C8>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5, _ c6: C6, _ c7: C7, _ c8: C8
    ) -> _ToolbarTuple<(C0, C1, C2, C3, C4, C5, C6, C7, C8)>
    where C0: ToolbarContent, C1: ToolbarContent, C2: ToolbarContent, C3: ToolbarContent,
          C4: ToolbarContent, C5: ToolbarContent, C6: ToolbarContent, C7: ToolbarContent,
          C8: ToolbarContent {
        _ToolbarTuple((c0, c1, c2, c3, c4, c5, c6, c7, c8))
    }
    public static func buildBlock<C0, C1, C2, C3, C4, C5, C6, C7, C8, C9>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5, _ c6: C6, _ c7: C7, _ c8: C8, _ c9: C9
    ) -> _ToolbarTuple<(C0, C1, C2, C3, C4, C5, C6, C7, C8, C9)>
    where C0: ToolbarContent, C1: ToolbarContent, C2: ToolbarContent, C3: ToolbarContent,
          C4: ToolbarContent, C5: ToolbarContent, C6: ToolbarContent, C7: ToolbarContent,
          C8: ToolbarContent, C9: ToolbarContent {
        _ToolbarTuple((c0, c1, c2, c3, c4, c5, c6, c7, c8, c9))
    }
}

// MARK: - Modifiers (each returns the view unchanged: layout is not modelled)

@available(iOS 15.0, *)
public struct TextInputAutocapitalization: Sendable {
    public static let never = TextInputAutocapitalization(), words = TextInputAutocapitalization()
    public static let sentences = TextInputAutocapitalization(), characters = TextInputAutocapitalization()
}

extension View {
    nonisolated public func font(_ font: Font?) -> some View { self }
    @available(iOS 16.0, *)
    nonisolated public func bold(_ isActive: Bool = true) -> some View { self }
    @available(iOS 15.0, *)
    nonisolated public func foregroundStyle<S: ShapeStyle>(_ style: S) -> some View { self }
    nonisolated public func opacity(_ opacity: Double) -> some View { self }
    nonisolated public func disabled(_ disabled: Bool) -> some View { self }
    @available(iOS 14.0, *)
    nonisolated public func navigationTitle(_ titleKey: LocalizedStringKey) -> some View { self }
    @available(iOS 14.0, *)
    @_disfavoredOverload
    nonisolated public func navigationTitle<S: StringProtocol>(_ title: S) -> some View { self }
    @available(iOS 14.0, *)
    nonisolated public func navigationTitle(_ title: Text) -> some View { self }
    @available(iOS 14.0, *)
    nonisolated public func toolbar<Content: ToolbarContent>(
        @ToolbarContentBuilder content: () -> Content) -> some View { self }
    @available(iOS 14.0, *)
    nonisolated public func toolbar<Content: View>(@ViewBuilder content: () -> Content) -> some View { self }
    // Apple's page now lists it as deprecated in iOS 27.0.
    @available(iOS, introduced: 13.0, deprecated: 27.0)
    nonisolated public func tabItem<V: View>(@ViewBuilder _ label: () -> V) -> some View { self }
    nonisolated public func tag<V: Hashable>(_ tag: V) -> some View { self }
    @available(iOS 15.0, *)
    nonisolated public func overlay<V: View>(
        alignment: Alignment = .center, @ViewBuilder content: () -> V) -> some View { self }
    nonisolated public func environmentObject<T: ObservableObject>(_ object: T) -> some View { self }
    nonisolated public func onAppear(perform action: (() -> Void)? = nil) -> some View { self }
    nonisolated public func onDisappear(perform action: (() -> Void)? = nil) -> some View { self }
    @available(
        iOS, introduced: 14.0, deprecated: 17.0,
        message: "Use `onChange` with a two or zero parameter action closure instead.")
    nonisolated public func onChange<V: Equatable>(
        of value: V, perform action: @escaping (_ newValue: V) -> Void) -> some View { self }
    // iOS 18 SDK form: today's page shows the iOS 26 SDK's `task(name:priority:file:line:_:)` taking
    // `sending @escaping @isolated(any) () async -> Void`.
    @available(iOS 15.0, *)
    nonisolated public func task(
        priority: TaskPriority = .userInitiated,
        @_inheritActorContext _ action: @escaping @Sendable () async -> Void
    ) -> some View { self }
    // iOS 18 SDK form (today's page: `task(id:name:priority:file:line:_:)`, iOS 26 SDK).
    @available(iOS 15.0, *)
    nonisolated public func task<T: Equatable>(
        id value: T, priority: TaskPriority = .userInitiated,
        @_inheritActorContext _ action: @escaping @Sendable () async -> Void
    ) -> some View { self }
    @available(iOS 15.0, *)
    nonisolated public func refreshable(action: @escaping @Sendable () async -> Void) -> some View { self }
    nonisolated public func sheet<Item: Identifiable, Content: View>(
        item: Binding<Item?>, onDismiss: (() -> Void)? = nil, @ViewBuilder content: @escaping (Item) -> Content
    ) -> some View { self }
    nonisolated public func sheet<Content: View>(
        isPresented: Binding<Bool>, onDismiss: (() -> Void)? = nil, @ViewBuilder content: @escaping () -> Content
    ) -> some View { self }
    nonisolated public func textContentType(_ textContentType: UITextContentType?) -> some View { self }
    nonisolated public func keyboardType(_ type: UIKeyboardType) -> some View { self }
    nonisolated public func autocorrectionDisabled(_ disable: Bool = true) -> some View { self }
    @available(iOS 15.0, *)
    nonisolated public func textInputAutocapitalization(
        _ autocapitalization: TextInputAutocapitalization?) -> some View { self }
}
