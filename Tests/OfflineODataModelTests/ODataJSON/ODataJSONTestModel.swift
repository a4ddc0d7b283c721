@testable import OfflineODataModel

/// A small V4 model exercising every kind the reader converts.
enum ODataJSONTestModel {
    static let csdl = """
        <EnumType Name="Color"><Member Name="Red" Value="1"/><Member Name="Green" Value="2"/><Member Name="Blue" Value="4"/></EnumType>
        <EnumType Name="Access" IsFlags="true"><Member Name="None" Value="0"/><Member Name="Read" Value="1"/><Member Name="Write" Value="2"/><Member Name="Delete" Value="4"/></EnumType>
        <TypeDefinition Name="Code" UnderlyingType="Edm.String" MaxLength="3"/>
        <ComplexType Name="Address">
          <Property Name="Street" Type="Edm.String" MaxLength="20"/>
          <Property Name="City" Type="Edm.String"/>
        </ComplexType>
        <ComplexType Name="GeoAddress" BaseType="T.Address">
          <Property Name="Where" Type="Edm.GeographyPoint"/>
        </ComplexType>
        <ComplexType Name="Bag" OpenType="true">
          <Property Name="Label" Type="Edm.String"/>
        </ComplexType>
        <EntityType Name="Item">
          <Key><PropertyRef Name="ID"/></Key>
          <Property Name="ID" Type="Edm.Int32" Nullable="false"/>
          <Property Name="Name" Type="Edm.String" Nullable="false" MaxLength="10"/>
          <Property Name="Big" Type="Edm.Int64"/>
          <Property Name="Small" Type="Edm.Int16"/>
          <Property Name="Tiny" Type="Edm.Byte"/>
          <Property Name="Signed" Type="Edm.SByte"/>
          <Property Name="Price" Type="Edm.Decimal" Precision="6" Scale="2"/>
          <Property Name="Ratio" Type="Edm.Double"/>
          <Property Name="Weight" Type="Edm.Single"/>
          <Property Name="Flag" Type="Edm.Boolean"/>
          <Property Name="Stamp" Type="Edm.DateTimeOffset"/>
          <Property Name="Day" Type="Edm.Date"/>
          <Property Name="Time" Type="Edm.TimeOfDay"/>
          <Property Name="Span" Type="Edm.Duration"/>
          <Property Name="Uid" Type="Edm.Guid"/>
          <Property Name="Blob" Type="Edm.Binary" MaxLength="4"/>
          <Property Name="Color" Type="T.Color"/>
          <Property Name="Rights" Type="T.Access"/>
          <Property Name="Code" Type="T.Code"/>
          <Property Name="Home" Type="T.Address"/>
          <Property Name="Tags" Type="Collection(Edm.String)" Nullable="false"/>
          <Property Name="Addresses" Type="Collection(T.Address)"/>
          <Property Name="Spot" Type="Edm.GeographyPoint"/>
          <Property Name="Extra" Type="T.Bag"/>
          <Property Name="Any" Type="Edm.Untyped"/>
          <NavigationProperty Name="Parent" Type="T.Item"/>
          <NavigationProperty Name="Children" Type="Collection(T.Item)"/>
        </EntityType>
        <EntityType Name="SpecialItem" BaseType="T.Item">
          <Property Name="Extra2" Type="Edm.String"/>
        </EntityType>
        <EntityType Name="Thing" OpenType="true">
          <Key><PropertyRef Name="Key"/></Key>
          <Property Name="Key" Type="Edm.String" Nullable="false"/>
        </EntityType>
        """

    static let container = """
        <EntitySet Name="Items" EntityType="T.Item"/>
        <EntitySet Name="Things" EntityType="T.Thing"/>
        <Singleton Name="Main" Type="T.Item"/>
        """

    static func model() throws -> ServiceModel {
        try ODataJSONTesting.v4Model(csdl, container: container)
    }

    static let v2Metadata = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
          <edmx:DataServices m:DataServiceVersion="2.0">
            <Schema Namespace="S" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
              <EntityType Name="Order">
                <Key><PropertyRef Name="OrderID"/></Key>
                <Property Name="OrderID" Type="Edm.String" Nullable="false"/>
                <Property Name="Created" Type="Edm.DateTime"/>
                <Property Name="Changed" Type="Edm.DateTimeOffset"/>
                <Property Name="At" Type="Edm.Time"/>
                <Property Name="Amount" Type="Edm.Decimal" Precision="16" Scale="3"/>
                <Property Name="Count" Type="Edm.Int64"/>
                <Property Name="Ratio" Type="Edm.Double"/>
                <NavigationProperty Name="Items" Relationship="S.OrderItems" FromRole="Order" ToRole="Item"/>
              </EntityType>
              <EntityType Name="Item">
                <Key><PropertyRef Name="ItemID"/></Key>
                <Property Name="ItemID" Type="Edm.Int32" Nullable="false"/>
              </EntityType>
              <Association Name="OrderItems">
                <End Type="S.Order" Multiplicity="1" Role="Order"/>
                <End Type="S.Item" Multiplicity="*" Role="Item"/>
              </Association>
              <EntityContainer Name="C" m:IsDefaultEntityContainer="true">
                <EntitySet Name="Orders" EntityType="S.Order"/>
                <EntitySet Name="Items" EntityType="S.Item"/>
                <AssociationSet Name="OrderItemsSet" Association="S.OrderItems">
                  <End EntitySet="Orders" Role="Order"/>
                  <End EntitySet="Items" Role="Item"/>
                </AssociationSet>
              </EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    static func v2Model() throws -> ServiceModel {
        try ODataJSONTesting.model(v2Metadata)
    }
}
